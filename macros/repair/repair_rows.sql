{#-
  table_diff.repair_rows: what makes one side of a pair equal to the other, from the pair's row
  diff: one row per action. `direction` 'source_to_target' (the default) writes the target,
  'target_to_source' the source. For the written side W and the reference side R:
  - a key only in W: `delete`;
  - a key only in R: `insert` of R's full row (every column of W that R has; NULL for the others);
  - a modified key: `update`, with R's values in the columns of `changed_columns` (columns equal
    after normalisation are not changed columns, so they are left as W stores them);
  - a key stored more than once on either side: `delete` (every W row of the key), then one
    `insert` per R row of the key, so W ends with exactly R's rows.
  Columns: `repair_action`, `changed_columns`, W's columns (W's names and types), `run_id`,
  `repair_direction`. R's rows are read at the version the pair pinned. Nothing is written to W:
  `apply_repair` (a run-operation) does that, after its checks.
-#}
{% macro repair_rows(ranges, row_diff, summary, source, target, direction='source_to_target') %}
  {% do table_diff._require_relation('repair_rows', 'ranges', ranges) %}
  {% do table_diff._require_relation('repair_rows', 'row_diff', row_diff) %}
  {% do table_diff._require_relation('repair_rows', 'summary', summary) %}
  {% do table_diff._require_relation('repair_rows', 'source', source) %}
  {% do table_diff._require_relation('repair_rows', 'target', target) %}
  {% do table_diff._repair_sides('repair_rows', direction) %}
  {{ return(adapter.dispatch('repair_rows', 'table_diff')(ranges, row_diff, summary, source, target, direction)) }}
{% endmacro %}


{% macro default__repair_rows(ranges, row_diff, summary, source, target, direction) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.repair_rows: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__repair_rows(ranges, row_diff, summary, source, target, direction) %}
  {% if not execute %}
    {{ return("select 'insert' as repair_action") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('repair_rows', ranges) %}
  {% do table_diff._require_pair_side('repair_rows', 'source', source, spec) %}
  {% do table_diff._require_pair_side('repair_rows', 'target', target, spec) %}
  {% do table_diff._require_run('repair_rows', 'row_diff', row_diff, spec) %}
  {% do table_diff._require_run('repair_rows', 'summary', summary, spec) %}
  {% if spec.get('column_map') %}
    {{ table_diff._fail('repair_rows', 'ranges', ranges, "a pair without column_map",
        "The repair writes rows under one side's column names. Repair a pair of views that share the names, or drop --repair from the pair.") }}
  {% endif %}
  {% set sides = table_diff._repair_sides('repair_rows', direction) %}
  {% set relations = {'source': source, 'target': target} %}
  {% set w_side, r_side = sides['write'], sides['read'] %}
  {% set w_cols = table_diff._repair_columns('repair_rows', relations[w_side], spec, w_side) %}
  {% set r_names = [] %}
  {% for c in adapter.get_columns_in_relation(relations[r_side]) %}{% do r_names.append(c.name | lower) %}{% endfor %}
  {% set only_in_w = 'added' if w_side == 'target' else 'deleted' %}
  {% set only_in_r = 'deleted' if w_side == 'target' else 'added' %}
  {% set keys = [] %}
  {% for k in spec['key'] %}{% do keys.append(table_diff.quote_identifier(k['name'])) %}{% endfor %}
  with
  td_diff as (select * from {{ row_diff }}),
  td_dup_keys as (select distinct {{ keys | join(', ') }} from td_diff where diff_type = 'duplicate_key'),
  td_insert_keys as (
    select {{ keys | join(', ') }} from td_diff where diff_type = '{{ only_in_r }}'
    union
    select {{ keys | join(', ') }} from td_dup_keys
  ),
  td_inserts as (
    select /*+ broadcast(k) */ r.*
    from (
      select * from {{ table_diff._side_from(spec, r_side, relations[r_side]) }}
      {{ table_diff._where(spec) }}
    ) as r
    join td_insert_keys as k
      on {% for kc in spec['key'] %}{{ 'and ' if not loop.first }}{{ table_diff._typed_expr(kc, r_side, 'r') }} <=> k.{{ keys[loop.index0] }} {% endfor %}
  ),
  td_actions as (
    {%- for action, from_cte, where in [('delete', 'td_diff', "diff_type = '" ~ only_in_w ~ "'"),
                                         ('delete', 'td_dup_keys', none),
                                         ('update', 'td_diff', "diff_type = 'modified'"),
                                         ('insert', 'td_inserts', none)] %}
    {{ 'union all' if not loop.first }}
    select
      '{{ action }}' as repair_action,
      {{ 'changed_columns' if action == 'update' else 'cast(null as array<string>)' }} as changed_columns
      {%- for wc in w_cols %},
      cast({{ table_diff._repair_value(wc, action, r_side, r_names) }} as {{ wc['w_type'] }}) as {{ table_diff.quote_identifier(wc['w_name']) }}
      {%- endfor %}
    from {{ from_cte }}
    {%- if where %}
    where {{ where }}
    {%- endif %}
    {%- endfor %}
  )
  select *,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    {{ table_diff._sql_string(direction) }} as repair_direction
  from td_actions
{% endmacro %}


{% macro _repair_sides(macro_name, direction) %}
  {#- {'write': side, 'read': side} for a repair direction, or a clear error. -#}
  {% if direction == 'source_to_target' %}{{ return({'write': 'target', 'read': 'source'}) }}{% endif %}
  {% if direction == 'target_to_source' %}{{ return({'write': 'source', 'read': 'target'}) }}{% endif %}
  {{ table_diff._fail(macro_name, 'direction', direction, "'source_to_target' (make the target equal to the source) or 'target_to_source'",
      "Most repairs write the copy: direction='source_to_target'.") }}
{% endmacro %}


{% macro _repair_columns(macro_name, relation, spec, w_side) %}
  {#- The written side's columns, each with what the pair knows of it: `key` (its key item),
      `col` (its compared-column item), `w_name`, `w_type`. Fails on a column whose name the
      repair table needs for itself. -#}
  {% set out = [] %}
  {% for c in adapter.get_columns_in_relation(relation) %}
    {% if c.name | lower in ['repair_action', 'changed_columns', 'run_id', 'repair_direction'] %}
      {{ table_diff._fail(macro_name, w_side, relation, "a table without a column named " ~ c.name ~ " (the repair table's own column)",
          "Rename the column, or repair this pair by hand from its row diff.") }}
    {% endif %}
    {% set item = {'w_name': c.name, 'w_type': c.data_type,
                   'key': table_diff._find_column(spec['key'], c.name),
                   'col': table_diff._find_column(spec['columns'], c.name)} %}
    {% do out.append(item) %}
  {% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _repair_value(wc, action, r_side, r_names) %}
  {#- The value an action writes to column `c` of the written side (cast by the caller). -#}
  {% if wc['key'] %}
    {{ return(table_diff.quote_identifier(wc['key']['name']) if action != 'insert' else table_diff._col_ref(wc['w_name'])) }}
  {% endif %}
  {% if action == 'update' and wc['col'] %}
    {{ return(table_diff.quote_identifier(r_side ~ '__' ~ wc['col']['name'])) }}
  {% endif %}
  {% if action == 'insert' and (wc['w_name'] | lower) in r_names %}
    {{ return(table_diff._col_ref(wc['w_name'])) }}
  {% endif %}
  {{ return('null') }}
{% endmacro %}
