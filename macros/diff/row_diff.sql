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
  {#-
    Needs `<side>_leafed` CTEs; defines `td_diff` with every differing row, unordered.
    Both sides' rows of the selected leaves are unioned (one scan each) and one window partitioned
    by the key does the work of a null-safe full outer join: per-side row counts (duplicates) and
    each side's values next to each other. One shuffle, and no CTE referenced twice (Spark would
    plan a CTE again, and scan again, at every reference).
  -#}
  {%- set ncol = spec['columns'] | length -%}
  td_rows as (
    {% for side in ['source', 'target'] %}
    select
      '{{ side }}' as __td_side,
      __td_k,
      {%- for k in spec['key'] %}
      {{ table_diff._typed_expr(k, side) }} as __td_key{{ loop.index }},
      {%- endfor %}
      {%- for c in spec['columns'] %}
      {{ table_diff._normalised_expr(c, side) }} as __td_v{{ loop.index }},
      {%- if side == 'source' %}
      {{ table_diff._col_ref(c['name']) }} as __td_sraw{{ loop.index }},
      cast(null as {{ c['target_type'] }}) as __td_traw{{ loop.index }},
      {%- else %}
      cast(null as {{ c['source_type'] }}) as __td_sraw{{ loop.index }},
      {{ table_diff._col_ref(c['name']) }} as __td_traw{{ loop.index }},
      {%- endif %}
      {%- endfor %}
      1 as __td_one
    from {{ side }}_leafed
    where __td_leaf in (select leaf_id from {{ leaves_cte }})
    {{ 'union all' if loop.first }}
    {% endfor %}
  ),

  td_paired as (
    select
      __td_side,
      {%- for k in spec['key'] %}
      __td_key{{ loop.index }},
      {%- endfor %}
      count_if(__td_side = 'source') over __td_w as __td_ns,
      count_if(__td_side = 'target') over __td_w as __td_nt
      {%- for c in spec['columns'] %},
      __td_sraw{{ loop.index }},
      __td_traw{{ loop.index }},
      first(if(__td_side = 'source', __td_v{{ loop.index }}, null), true) over __td_w as __td_sv{{ loop.index }},
      first(if(__td_side = 'target', __td_v{{ loop.index }}, null), true) over __td_w as __td_tv{{ loop.index }},
      first(__td_sraw{{ loop.index }}, true) over __td_w as __td_s{{ loop.index }},
      first(__td_traw{{ loop.index }}, true) over __td_w as __td_t{{ loop.index }}
      {%- endfor %}
    from td_rows
    window __td_w as (partition by __td_k)
  ),

  td_classified as (
    select
      *,
      case
        when __td_ns > 1 or __td_nt > 1 then 'duplicate_key'
        when __td_ns = 0 then 'added'
        when __td_nt = 0 then 'deleted'
        else 'modified'
      end as diff_type,
      {%- if ncol == 0 %}
      cast(array() as array<string>) as __td_changed
      {%- else %}
      filter(array(
        {%- for c in spec['columns'] %}
        if(__td_sv{{ loop.index }} <=> __td_tv{{ loop.index }}, null, {{ table_diff._sql_string(c['name']) }}){{ ',' if not loop.last }}
        {%- endfor %}
      ), x -> x is not null) as __td_changed
      {%- endif %}
    from td_paired
    {#- every stored row of a duplicated key; otherwise one row per key (the source's if present) #}
    where __td_ns > 1 or __td_nt > 1 or __td_side = 'source' or __td_ns = 0
  ),

  td_diff as (
    select
      {%- for k in spec['key'] %}
      __td_key{{ loop.index }},
      {%- endfor %}
      diff_type,
      case
        when diff_type = 'duplicate_key' then __td_side
        when diff_type = 'modified' then 'both'
        when diff_type = 'added' then 'target'
        else 'source'
      end as side,
      if(diff_type = 'modified', __td_changed, cast(array() as array<string>)) as changed_columns
      {%- for c in spec['columns'] %},
      if(diff_type = 'duplicate_key', __td_sraw{{ loop.index }}, __td_s{{ loop.index }}) as __td_s{{ loop.index }},
      if(diff_type = 'duplicate_key', __td_traw{{ loop.index }}, __td_t{{ loop.index }}) as __td_t{{ loop.index }}
      {%- endfor %}
    from td_classified
    where diff_type != 'modified' or size(__td_changed) > 0
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
