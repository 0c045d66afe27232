{#-
  table_diff.row_diff: rows that differ, fetched only from the compare units the split step kept.
  Keys match null-safely. A key present more than once on either side is reported as
  `duplicate_key` (each such row once, with the side it came from; never joined, so no cross
  product). Otherwise: `added` (only in target), `deleted` (only in source), `modified` (one row,
  `changed_columns` in table order, `source__<col>` / `target__<col>` for every compared column).
  Values are compared after the pair's normalisation; the output shows the stored values.
-#}
{% macro row_diff(ranges, block_split, source, target) %}
  {% do table_diff._require_relation('row_diff', 'ranges', ranges) %}
  {% do table_diff._require_relation('row_diff', 'block_split', block_split) %}
  {% do table_diff._require_relation('row_diff', 'source', source) %}
  {% do table_diff._require_relation('row_diff', 'target', target) %}
  {{ return(adapter.dispatch('row_diff', 'table_diff')(ranges, block_split, source, target)) }}
{% endmacro %}


{% macro default__row_diff(ranges, block_split, source, target) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.row_diff: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__row_diff(ranges, block_split, source, target) %}
  {% if not execute %}
    {{ return("select 'added' as diff_type") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('row_diff', ranges) %}
  {% set leaf_count = run_query("select count(*) from " ~ ranges).rows[0][0] | int %}
  {% set units = run_query("select count(*) from " ~ block_split ~ " where selected").rows[0][0] | int %}
  {% if units == 0 %}
    {#- Nothing differs (or nothing was selected): no scan at all, an empty table of the right shape. -#}
    {{ table_diff._row_diff_select(spec, none) }}
  {% else %}
  with
  {{ table_diff._block_hashes_ctes(spec, source, target, ranges, leaf_count) }},
  td_leaves as (
    select distinct explode(sequence(leaf_lo, leaf_hi)) as leaf_id
    from {{ block_split }}
    where selected
  ),
  {{ table_diff._row_diff_ctes(spec, 'td_leaves') }}
  {{ table_diff._row_diff_select(spec, 'td_diff') }}
  {% endif %}
{% endmacro %}


{% macro _row_diff_ctes(spec, leaves_cte) %}
  {#- Needs `<side>_leafed` CTEs; defines `td_diff` with every differing row, unordered. -#}
  {%- set key_n = spec['key'] | length -%}
  {% for side in ['source', 'target'] %}
  {{ side }}_in as (
    select
      __td_k,
      {%- for k in spec['key'] %}
      {{ table_diff._typed_expr(k, side) }} as __td_key{{ loop.index }},
      {%- endfor %}
      {%- for c in spec['columns'] %}
      {{ table_diff._normalised_expr(c, side) }} as __td_v{{ loop.index }},
      {{ table_diff._col_ref(c['name']) }} as __td_raw{{ loop.index }},
      {%- endfor %}
      count(*) over (partition by __td_k) as __td_n
    from {{ side }}_leafed
    where __td_leaf in (select leaf_id from {{ leaves_cte }})
  ),
  {% endfor %}
  td_dup_keys as (
    select distinct __td_k from (
      select __td_k from source_in where __td_n > 1
      union all
      select __td_k from target_in where __td_n > 1
    ) as d
  ),
  {% for side in ['source', 'target'] %}
  {{ side }}_unique as (
    select s.* from {{ side }}_in as s left anti join td_dup_keys as d on s.__td_k <=> d.__td_k
  ),
  {% endfor %}
  td_joined as (
    select
      s.__td_n is not null as __td_in_source,
      t.__td_n is not null as __td_in_target,
      {%- for k in spec['key'] %}
      if(s.__td_n is not null, s.__td_key{{ loop.index }}, t.__td_key{{ loop.index }}) as __td_key{{ loop.index }},
      {%- endfor %}
      filter(array(
        {%- for c in spec['columns'] %}
        if(s.__td_v{{ loop.index }} <=> t.__td_v{{ loop.index }}, null, {{ table_diff._sql_string(c['name']) }}){{ ',' if not loop.last }}
        {%- endfor %}
      ), x -> x is not null) as __td_changed
      {%- for c in spec['columns'] %},
      s.__td_raw{{ loop.index }} as __td_s{{ loop.index }},
      t.__td_raw{{ loop.index }} as __td_t{{ loop.index }}
      {%- endfor %}
    from source_unique as s
    full outer join target_unique as t on s.__td_k <=> t.__td_k
  ),
  td_diff as (
    select
      {%- for k in spec['key'] %}
      __td_key{{ loop.index }},
      {%- endfor %}
      case when not __td_in_source then 'added' when not __td_in_target then 'deleted' else 'modified' end as diff_type,
      case when __td_in_source and __td_in_target then 'both' when __td_in_source then 'source' else 'target' end as side,
      if(__td_in_source and __td_in_target, __td_changed, cast(array() as array<string>)) as changed_columns
      {%- for c in spec['columns'] %},
      __td_s{{ loop.index }}, __td_t{{ loop.index }}
      {%- endfor %}
    from td_joined
    where not (__td_in_source and __td_in_target) or size(__td_changed) > 0
    {% for side in ['source', 'target'] %}
    union all
    select
      {%- for k in spec['key'] %}
      __td_key{{ loop.index }},
      {%- endfor %}
      'duplicate_key' as diff_type,
      '{{ side }}' as side,
      cast(array() as array<string>) as changed_columns
      {%- for c in spec['columns'] %},
      {{ '__td_raw' ~ loop.index if side == 'source' else 'cast(null as ' ~ c['source_type'] ~ ')' }},
      {{ '__td_raw' ~ loop.index if side == 'target' else 'cast(null as ' ~ c['target_type'] ~ ')' }}
      {%- endfor %}
    from {{ side }}_in as s
    left semi join td_dup_keys as d on s.__td_k <=> d.__td_k
    {% endfor %}
  )
{% endmacro %}


{% macro _row_diff_select(spec, diff_cte) %}
  {#- Final projection with user-facing names; `diff_cte` none = an empty table of the same shape. -#}
  select
    {%- for k in spec['key'] %}
    {{ ('__td_key' ~ loop.index) if diff_cte else ('cast(null as ' ~ k['type'] ~ ')') }} as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    {{ 'diff_type' if diff_cte else 'cast(null as string)' }} as diff_type,
    {{ 'side' if diff_cte else 'cast(null as string)' }} as side,
    {{ 'changed_columns' if diff_cte else 'cast(null as array<string>)' }} as changed_columns
    {%- for c in spec['columns'] %},
    {{ ('__td_s' ~ loop.index) if diff_cte else ('cast(null as ' ~ c['source_type'] ~ ')') }} as {{ table_diff.quote_identifier('source__' ~ c['name']) }},
    {{ ('__td_t' ~ loop.index) if diff_cte else ('cast(null as ' ~ c['target_type'] ~ ')') }} as {{ table_diff.quote_identifier('target__' ~ c['name']) }}
    {%- endfor %}
  {% if diff_cte %}
  from {{ diff_cte }}
  order by
    {%- for k in spec['key'] %} __td_key{{ loop.index }},{% endfor %} diff_type, side
  limit {{ spec['max_diff_rows'] }}
  {% else %}
  where false
  {% endif %}
{% endmacro %}
