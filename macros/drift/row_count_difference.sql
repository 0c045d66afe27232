{#- table_diff.row_count_difference: one row (source_rows, target_rows, difference) when the counts
    differ by more than the tolerance, none otherwise. Engine of the `row_count_matches` test. -#}
{% macro row_count_difference(source, target, table_filter=none, tolerance=0, tolerance_pct=none) %}
  {% do table_diff._check_kwargs('row_count_difference', kwargs, ['source', 'target', 'table_filter', 'tolerance', 'tolerance_pct']) %}
  {% do table_diff._require_relation('row_count_matches', 'model', source) %}
  {% do table_diff._require_relation('row_count_matches', 'compare_to', target) %}
  {% if table_filter is not none and (table_filter is not string or table_filter | trim == '') %}
    {{ table_diff._fail('row_count_matches', 'table_filter', table_filter, "a SQL boolean expression as a string",
        "Write it as table_filter=\"status != 'test'\", or leave it out.") }}
  {% endif %}
  {% set tolerance = table_diff._positive_int_or_none('row_count_matches', 'tolerance', tolerance, 0) or 0 %}
  {% if tolerance_pct is not none and (tolerance_pct is not number or tolerance_pct is boolean or tolerance_pct < 0) %}
    {{ table_diff._fail('row_count_matches', 'tolerance_pct', tolerance_pct, "a number >= 0 (percent of the larger count)",
        "Write it as tolerance_pct=0.5 for half a percent.") }}
  {% endif %}
  {% if execute %}
    {% do table_diff._check_table_filter('row_count_matches', table_filter, [source, target]) %}
  {% endif %}
  {{ return(adapter.dispatch('row_count_difference', 'table_diff')(source, target, table_filter, tolerance, tolerance_pct)) }}
{% endmacro %}


{% macro default__row_count_difference(source, target, table_filter, tolerance, tolerance_pct) %}
  {%- set where = ('where ' ~ table_diff._filter_predicate(table_filter)) if table_filter else '' -%}
  with counts as (
    select
      (select count(*) from {{ source }} {{ where }}) as source_rows,
      (select count(*) from {{ target }} {{ where }}) as target_rows
  )
  select source_rows, target_rows, target_rows - source_rows as difference
  from counts
  where abs(target_rows - source_rows) > {{ tolerance }}
  {%- if tolerance_pct is not none %}
    and abs(target_rows - source_rows) > greatest(source_rows, target_rows) * {{ tolerance_pct }} / 100.0
  {%- endif %}
{% endmacro %}
