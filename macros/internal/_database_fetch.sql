{#- The row fetch of a pair or no_drift with a database side (ADR 0047), when some leaves differ:
    the side Spark reads is read once into a cache, and, when the selected leaves hold enough
    rows, a second round of signatures inside them keeps the database from sending every row of
    a mismatched leaf. -#}

{% macro _database_fetch_ctes(spec, relations, ranges, plan, leaves) %}
  {#-
    CTEs `source_leafed` and `target_leafed` of the rows of the selected `leaves` (leaf ids, some
    of all), as `_side_blocks_ctes` gives them to the row diff. `ranges`: a relation queries can
    read (the pair's ranges, no_drift's cached ones); `plan`: the leaf plan of the Spark side.

    Under half the leaves (var `table_diff_dense_leaf_share`), the Spark side's rows of those
    leaves are cached once, each with its key's dense rank in its leaf. When they are at least
    var `table_diff_database_parts_from` rows (default 20,000), each leaf is cut into parts of
    `size` keys in key order, size the square root of the mean selected leaf's rows (at least 4):
    the first key of each part but a leaf's first is a sub-bound, and a row's part is the number
    of sub-bounds at or below its key (its leaf's offset, the sub-bounds of the selected leaves
    before it, plus its part in the leaf). The database signs its rows of the same leaves per
    part (`database_signature_sql` with `sub_bounds`), Spark signs its cached rows the same way,
    and only the parts whose count, sums or duplicate keys differ are fetched, from both sides.
    A part is a key range, so a row and its counterpart always meet in one. At 0.01% drift
    scattered over 16,384 leaves of about 600 rows: about 25 parts a leaf, so the database sends
    about 25,000 signature rows and 25,000 rows instead of 600,000 rows.
  -#}
  {% set dside = spec['databases'].keys() | list | first %}
  {% set lside = 'target' if dside == 'source' else 'source' %}
  {% if leaves | length >= plan['leaf_count'] * table_diff._dense_leaf_share() %}
    {{ return(table_diff._side_blocks_ctes(spec, [['source', relations['source']], ['target', relations['target']]], ranges, plan, none, leaves)) }}
  {% endif %}
  {% set db = spec['databases'][dside] %}
  {% set conn = table_diff._database_connection_of(spec, dside) %}
  {% set bounds = table_diff._database_bounds(spec, db, ranges) %}
  {% set rows = 'td_cache_fetch_' ~ local_md5(spec['source'] ~ spec['target'] ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff.cache_view(rows, "with " ~ table_diff._side_blocks_ctes(spec, [[lside, relations[lside]]], ranges, plan)
      ~ " select *, dense_rank() over (partition by __td_leaf order by __td_k) as __td_dr from " ~ lside ~ "_leafed where __td_leaf in ("
      ~ leaves | join(',') ~ ")") %}
  {% set n = run_query("select count(*) from " ~ rows).rows[0][0] | int %}
  {% set sub_bounds, parts, from = none, none, rows %}
  {% if n >= table_diff._database_parts_from() %}
    {% set size = [4, ((n / (leaves | length)) ** 0.5) | round | int] | max %}
    {% set part = "floor((__td_dr - 1) / " ~ size ~ ")" %}
    {% set from = "(select r.*, cast(o.__td_offset + " ~ part ~ " as int) as __td_part from " ~ rows ~ " as r join (select __td_leaf, "
        ~ "coalesce(sum(" ~ part ~ ") over (order by __td_leaf rows between unbounded preceding and 1 preceding), 0) as __td_offset from "
        ~ "(select __td_leaf, max(__td_dr) as __td_dr from " ~ rows ~ " group by __td_leaf) as m) as o on r.__td_leaf = o.__td_leaf)" %}
    {% set sub_bounds = table_diff._database_bounds(spec, db, "(select __td_part as leaf_id, first(__td_k) as lower_bound from " ~ from
        ~ " as p where __td_dr > 1 and (__td_dr - 1) % " ~ size ~ " = 0 group by 1) as td_parts") %}
    {% set signed = table_diff._database_signatures(spec, dside, bounds, leaves, sub_bounds, spec.get('check_duplicate_keys')) %}
    {% set ids = run_query("select coalesce(array_join(collect_list(cast(coalesce(s.leaf_id, t.leaf_id) as string)), ','), '') from (select "
        ~ "__td_part as leaf_id, count(*) as n_rows, " ~ ("count(distinct named_struct('k', __td_k))" if spec.get('check_duplicate_keys') else 'count(*)')
        ~ " as n_keys, " ~ table_diff._hash_sums() ~ " from " ~ from ~ " as p group by 1) as s full outer join " ~ signed ~ " as t on s.leaf_id = t.leaf_id"
        ~ " where not coalesce(s.n_rows = t.n_rows and s.h1_hi = t.h1_hi and s.h1_lo = t.h1_lo and s.h2_hi = t.h2_hi and s.h2_lo = t.h2_lo"
        ~ " and s.n_keys = s.n_rows and t.n_keys = t.n_rows, false)").rows[0][0] %}
    {% set parts = ids.split(',') | map('int') | list if ids else [] %}
    {% do log("table_diff: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": " ~ n ~ " rows of " ~ leaves | length ~ " leaves in "
        ~ (sub_bounds | length + 1) ~ " parts of about " ~ size ~ " keys: " ~ parts | length ~ " differ, their rows are fetched", info=true) %}
  {% endif %}
  {{ lside }}_leafed as (
    select * from {{ from }} as p
    {%- if parts is not none %}
    where __td_part in ({{ (parts or [-1]) | join(',') }})
    {%- endif %}
  ),
  {{ dside }}_leafed as (
    select r.*, {{ table_diff._key_expr(spec, dside, 'r') }} as __td_k
    from {{ table_diff._database_view(conn, table_diff.database_rows_sql(db, bounds, leaves, sub_bounds, parts), true) }} as r
  )
{%- endmacro %}


{% macro _database_parts_from(macro_name='row_diff') %}
  {#- Rows of the selected leaves from which the fetch of a database side takes the second round
      (`_database_fetch_ctes`); var `table_diff_database_parts_from`. -#}
  {{ return(table_diff._number_var(macro_name, 'table_diff_database_parts_from', 20000, 0, whole=true)) }}
{% endmacro %}
