{#-
  table_diff.multiset_difference: how two relations without a key differ, rows compared whole as
  a multiset (a row stored twice on one side and once on the other differs by one row). Each row
  is reduced to its 128-bit fingerprint (`row_fingerprint` over `_fingerprint_inputs`, as a pair
  hashes its rows, with no key), so:
  0. one query computes a whole-table signature per side (row count and the exact sums of both
     64-bit halves: one pass over each table, no grouping); equal signatures: identical, done;
  1. otherwise one query counts the rows per fingerprint on each side and joins the two counts
     (one more pass over each table), keeping the fingerprints whose counts differ, cached once;
  2. the rows only in `target` (`added`) and only in `source` (`deleted`) are summed from it, and
     the first `sample_rows` fingerprints of each kind, by fingerprint, are read back from the
     side that holds the extra copies, as text (a third read, of those rows only).
  Returns a mapping (for run-operations and macros such as diff_changes), not SQL.
-#}
{% macro multiset_difference(source, target, columns=none, exclude_columns=none, sample_rows=none) %}
  {% do table_diff._check_kwargs('multiset_difference', kwargs, ['source', 'target', 'columns', 'exclude_columns', 'sample_rows']) %}
  {% do table_diff._require_relation('multiset_difference', 'source', source) %}
  {% do table_diff._require_relation('multiset_difference', 'target', target) %}
  {% set cols = table_diff._as_name_list('multiset_difference', 'columns', columns, allow_empty=true) %}
  {% set excl = table_diff._as_name_list('multiset_difference', 'exclude_columns', exclude_columns, allow_empty=true) %}
  {% if cols | length > 0 and excl | length > 0 %}
    {{ table_diff._fail('multiset_difference', 'columns', cols | join(', '), "either columns or exclude_columns, not both",
        "Keep columns (the list to compare) or exclude_columns (compare all but these), and remove the other.") }}
  {% endif %}
  {% set per_kind = table_diff._sample_rows_var('multiset_difference') if sample_rows is none
      else table_diff._positive_int_or_none('multiset_difference', 'sample_rows', sample_rows, 0) %}
  {{ return(adapter.dispatch('multiset_difference', 'table_diff')(source, target, cols, excl, per_kind)) }}
{% endmacro %}


{% macro default__multiset_difference(source, target, columns, exclude_columns, sample_rows) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.multiset_difference: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__multiset_difference(source, target, columns, exclude_columns, sample_rows) %}
  {% if not execute %}{{ return({}) }}{% endif %}
  {% set m = 'multiset_difference' %}
  {#- The pair's one resolver of sides, with no key: the compared columns are the source's (every
      one present in the target, in a common type), as drift_rows', checked before any scan. -#}
  {% set resolved = table_diff._resolve_sides(m, [['source', source, 'source'], ['target', target, 'target']],
      {'key': [], 'columns': columns, 'exclude_columns': exclude_columns, 'normalize': {}, 'tolerance': {}, 'table_filter': none}) %}
  {% set spec = {'key': [], 'columns': resolved['columns'], 'table_filter': none} %}
  {% if spec['columns'] | length == 0 %}
    {{ table_diff._fail(m, 'exclude_columns', exclude_columns | join(', '), "at least one column left to compare",
        "Rows with no compared column are all alike; keep at least one column of " ~ source ~ ".") }}
  {% endif %}
  {% set names = spec['columns'] | map(attribute='name') | list %}
  {% set sides = {'source': source, 'target': target} %}
  {% set hashed = {} %}
  {% for side, relation in sides.items() %}
    {% set inputs = table_diff._fingerprint_inputs(spec, side) %}
    {% do hashed.update({side: "select " ~ table_diff.row_fingerprint(inputs, 'a') ~ " as __td_h1, "
        ~ table_diff.row_fingerprint(inputs, 'b') ~ " as __td_h2 from " ~ relation}) %}
  {% endfor %}
  {% set whole = {} %}
  {% set whole_sql %}
    {%- for side in ['source', 'target'] %}
    {{ 'union all' if not loop.first }}
    select '{{ side }}' as side, count(*) as n_rows, {{ table_diff._hash_sums(empty_as_zero=true) }}
    from ({{ hashed[side] }}) as r
    {%- endfor %}
  {% endset %}
  {% for row in run_query(whole_sql).rows %}
    {% do whole.update({row[0]: [row[1] | int, row[2], row[3], row[4], row[5]]}) %}
  {% endfor %}
  {% set out = {'source_rows': whole['source'][0], 'target_rows': whole['target'][0], 'columns': names,
                'identical': whole['source'] == whole['target'], 'added': 0, 'deleted': 0,
                'added_distinct': 0, 'deleted_distinct': 0, 'samples': []} %}
  {% set label = source ~ " vs " ~ target %}
  {% if out['identical'] %}
    {% do log("table_diff." ~ m ~ ": " ~ label ~ ": identical as multisets (" ~ out['source_rows']
        ~ " rows each side; whole-table signatures equal).", info=true) %}
    {{ return(out) }}
  {% endif %}

  {% set view = 'td_cache_multiset_' ~ local_md5(label ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% set counts_sql %}
    with td_s as (
      select __td_h1, __td_h2, count(*) as n from ({{ hashed['source'] }}) as r group by __td_h1, __td_h2
    ),
    td_t as (
      select __td_h1, __td_h2, count(*) as n from ({{ hashed['target'] }}) as r group by __td_h1, __td_h2
    )
    select
      coalesce(s.__td_h1, t.__td_h1) as __td_h1,
      coalesce(s.__td_h2, t.__td_h2) as __td_h2,
      coalesce(s.n, 0) as source_n,
      coalesce(t.n, 0) as target_n
    from td_s as s
    full outer join td_t as t on s.__td_h1 = t.__td_h1 and s.__td_h2 = t.__td_h2
    where coalesce(s.n, 0) != coalesce(t.n, 0)
  {% endset %}
  {% do table_diff.cache_view(view, counts_sql) %}
  {% set c = run_query("select coalesce(sum(greatest(target_n - source_n, 0)), 0), coalesce(sum(greatest(source_n - target_n, 0)), 0),"
      ~ " count_if(target_n > source_n), count_if(source_n > target_n) from " ~ view).rows[0] %}
  {% do out.update({'added': c[0] | int, 'deleted': c[1] | int, 'added_distinct': c[2] | int, 'deleted_distinct': c[3] | int}) %}

  {% if sample_rows > 0 %}
    {% set fetch = [] %}
    {% for side, kind in [('target', 'added'), ('source', 'deleted')] %}
      {% set cells = [] %}
      {% for col in spec['columns'] %}
        {% do cells.append("concat(" ~ table_diff._sql_string(col['name'] ~ '=') ~ ", "
            ~ table_diff._value_text(table_diff._typed_expr(col, side), col[side ~ '_type']) ~ ")") %}
      {% endfor %}
      {% set inputs = table_diff._fingerprint_inputs(spec, side) %}
      {% do fetch.append("select '" ~ kind ~ "' as kind, concat_ws(', ', " ~ cells | join(', ') ~ ") as line, "
          ~ table_diff.row_fingerprint(inputs, 'a') ~ " as __td_h1, " ~ table_diff.row_fingerprint(inputs, 'b')
          ~ " as __td_h2 from " ~ sides[side]) %}
    {% endfor %}
    {% set samples_sql %}
      with td_picked as (
        select * from (
          select
            if(target_n > source_n, 'added', 'deleted') as kind,
            abs(target_n - source_n) as n,
            __td_h1, __td_h2,
            row_number() over (partition by target_n > source_n order by __td_h1, __td_h2) as rn
          from {{ view }}
        ) as p
        where rn <= {{ sample_rows }}
      )
      select kind, n, line from (
        select {{ table_diff.broadcast_hint(['p']) }}
          r.kind, p.n, p.rn, r.line,
          row_number() over (partition by r.kind, r.__td_h1, r.__td_h2 order by r.line) as copy
        from ({{ fetch | join('\nunion all\n') }}) as r
        join td_picked as p on p.kind = r.kind and p.__td_h1 = r.__td_h1 and p.__td_h2 = r.__td_h2
      ) as f
      where copy = 1
      order by array_position(array('added', 'deleted'), kind), rn
    {% endset %}
    {% for row in run_query(samples_sql).rows %}
      {% do out['samples'].append([row[0], row[1] | int, row[2]]) %}
    {% endfor %}
  {% endif %}
  {% do log("table_diff." ~ m ~ ": " ~ label ~ " DIFFER as multisets: " ~ out['added'] ~ " rows only in "
      ~ target ~ " (added), " ~ out['deleted'] ~ " only in " ~ source ~ " (deleted); rows " ~ out['source_rows']
      ~ " vs " ~ out['target_rows'] ~ ", compared on " ~ names | length ~ " columns.", info=true) %}
  {{ return(out) }}
{% endmacro %}
