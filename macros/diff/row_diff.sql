{#-
  table_diff.row_diff: rows that differ, fetched only from the compare units the split step kept.
  Keys match null-safely. A key present more than once on either side is reported as
  `duplicate_key` (each such row once, with the side it came from; never joined, so no cross
  product). Otherwise: `added` (only in target), `deleted` (only in source), `modified` (one row,
  `changed_columns` in table order, `source__<col>` / `target__<col>` for every compared column).
  Values are compared after the pair's normalisation; the output shows the stored values.
-#}
{% macro row_diff(ranges, block_split, source, target, file_hashes=none) %}
  {% do table_diff._require_relation('row_diff', 'ranges', ranges) %}
  {% do table_diff._require_relation('row_diff', 'block_split', block_split) %}
  {% do table_diff._require_relation('row_diff', 'source', source) %}
  {% do table_diff._require_relation('row_diff', 'target', target) %}
  {% if file_hashes is not none %}
    {% do table_diff._require_relation('row_diff', 'file_hashes', file_hashes) %}
  {% endif %}
  {{ return(adapter.dispatch('row_diff', 'table_diff')(ranges, block_split, source, target, file_hashes)) }}
{% endmacro %}


{% macro default__row_diff(ranges, block_split, source, target, file_hashes=none) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.row_diff: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__row_diff(ranges, block_split, source, target, file_hashes=none) %}
  {% if not execute %}
    {{ return("select 'added' as diff_type") }}
  {% endif %}
  {% set read = table_diff._read_ranges('row_diff', ranges) %}
  {% set spec = read['spec'] %}
  {% do table_diff._require_pair_side('row_diff', 'source', source, spec) %}
  {% do table_diff._require_pair_side('row_diff', 'target', target, spec) %}
  {% do table_diff._require_run('row_diff', 'block_split', block_split, spec) %}
  {% set leaf_count = read['leaf_count'] %}
  {% set leaves_query = "select explode(sequence(leaf_lo, leaf_hi)) as leaf_id from " ~ block_split ~ " where selected" %}
  {% set sel = run_query("select (select count(*) from " ~ block_split ~ " where selected), count(distinct leaf_id),"
      ~ " (select coalesce(sum(source_rows), 0) from " ~ block_split ~ " where selected),"
      ~ " (select coalesce(sum(target_rows), 0) from " ~ block_split ~ " where selected),"
      ~ " (select count(*) from " ~ block_split ~ " where not selected) from ("
      ~ leaves_query ~ ") as l").rows[0] %}
  {% set units, selected_leaves = sel[0] | int, sel[1] | int %}
  {% do log("table_diff.row_diff: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": "
      ~ ("fetching the rows of " ~ units ~ " compare units (" ~ selected_leaves ~ " of " ~ leaf_count ~ " leaves; "
         ~ sel[2] ~ " source rows, " ~ sel[3] ~ " target rows) and joining them on the key" if units > 0
         else "no compare unit differs: nothing to fetch"), info=true) %}
  {% if units == 0 %}
    {#- Nothing differs (or nothing was selected): no scan at all, an empty table of the right shape. -#}
    {{ table_diff._row_diff_select(spec, none) }}
  {% else %}
  {% if spec.get('quick_check_planned') and selected_leaves < leaf_count %}
    {#- key_ranges cut no bounds for a run that takes the quick check (ADR 0031), and planned it
        only when every unit of its whole-table split is kept. -#}
    {{ table_diff._fail('row_diff', 'block_split', block_split, "every leaf selected, as block_split selects them after a quick check (" ~ spec['ranges'] ~ " holds no leaf bounds)",
        "Rebuild the pair from its ranges: dbt build --select " ~ spec['ranges'].split('.')[-1] ~ "+") }}
  {% endif %}
  {#- A database side: the leaves are tested in its database, which sends their rows (ADR 0047). -#}
  {% set database = spec.get('databases') or none %}
  {% set key_filter = table_diff._selected_key_ranges(spec, ranges, leaves_query) if selected_leaves < leaf_count and not database else none %}
  {#- Most leaves selected, every differing unit among them, no key range to push and no changes
      track: every row is fetched, as when every leaf is selected (ADR 0030). The rows of the
      leaves left out have equal signatures, so they join equal and emit nothing, and the leaf
      lookup they skip costs about a read of the table. -#}
  {% if selected_leaves < leaf_count and key_filter is none and file_hashes is none and (sel[4] | int) == 0 and not database
        and selected_leaves >= leaf_count * table_diff._whole_fetch_leaf_share() %}
    {% do log("table_diff.row_diff: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": " ~ selected_leaves ~ " of "
        ~ leaf_count ~ " leaves selected: fetching every row, without looking up its leaf", info=false) %}
    {% set selected_leaves = leaf_count %}
  {% endif %}
  {#- Every leaf selected: no row needs its leaf, so none is looked up (nothing joined). -#}
  {% set plan = table_diff._leaf_plan(spec, ranges, leaf_count) if selected_leaves < leaf_count
      else {'kind': 'none', 'leaf_count': leaf_count} %}
  {#- With a changes track: only the data files that hold a selected leaf (ADR 0019). -#}
  {% set files = table_diff._track_fetch_files(spec, file_hashes, leaves_query, {'source': source, 'target': target}) if file_hashes is not none else none %}
  {% set keys_view = table_diff._cache_differing_keys(spec, source, target, ranges, plan, leaves_query, selected_leaves, key_filter, files,
      [sel[2] | int, sel[3] | int] | max) %}
  {#- On a grid, rows are kept by their cell, one bigint compared with the cells of the selected
      leaves, instead of by their leaf (a join and a comparison of the whole key, about one more
      read of the table): the cells' rows of other leaves join equal and emit nothing. Not with a
      changes track, whose fetch reads only some files and needs the leaves exact (ADR 0030). -#}
  {% set grid = plan if plan['kind'] == 'grid' and keys_view is none and files is none and not database else none %}
  {% if grid %}
    {% set plan = {'kind': 'none', 'leaf_count': leaf_count} %}
  {% endif %}
  {% set database_leaves = none %}
  {% if database %}
    {% set ids = run_query("select coalesce(array_join(collect_list(cast(leaf_id as string)), ','), '') from (" ~ leaves_query ~ ") as l").rows[0][0] %}
    {% set database_leaves = (ids.split(',') | map('int') | list) if selected_leaves < leaf_count else [] %}
  {% endif %}
  with
  {{ table_diff._block_hashes_ctes(spec, source, target, ranges, plan, files=files, database_leaves=database_leaves) }},
  td_leaves as ({{ leaves_query }}),
  {%- if grid %}
  td_cells as ({{ table_diff._selected_cells_sql(ranges, grid) }}),
  {%- endif %}
  {{ table_diff._row_diff_ctes(spec, none if grid else table_diff._leaf_filter_cte(selected_leaves, leaf_count), keys_view, key_filter,
      cell_filter=('coalesce(' ~ table_diff.grid_cell(grid, '__td_k') ~ ', -1L)') if grid else none) }}
  {{ table_diff._row_diff_select(spec, 'td_diff') }}
  {% endif %}
{% endmacro %}


{% macro _selected_cells_sql(ranges, plan) %}
  {#- The grid cells (`grid_cell`) that hold a key of a selected leaf: from its lower bound's cell
      (leaf 0: -1, the cell of a NULL first column, which the fetch gives -1) to its upper bound's,
      included (a composite key equal to the bound in its first column may be below it), or the
      last cell for the last leaf. Reads the CTE `td_leaves` (the selected leaves). -#}
  select explode(sequence(
      if(r.leaf_id = 0, -1L, {{ table_diff.grid_cell(plan, 'r.lower_bound') }}),
      coalesce({{ table_diff.grid_cell(plan, 'r.upper_bound') }}, {{ plan['last_cell'] }}L))) as __td_c
  from {{ ranges }} as r
  left semi join td_leaves as l on r.leaf_id = l.leaf_id
{% endmacro %}


{% macro _selected_key_ranges(spec, ranges, leaves_query) %}
  {#-
    The selected leaves as a predicate on the key's first column, or none: one term per run of
    contiguous selected leaves. Leaf i holds lower_bound <= key < upper_bound (leaf 0 also every
    NULL key); a composite key compares as a struct whose NULL fields sort first, so a run's keys
    have their first column between the run's bounds' first columns, both included, or NULL when
    the run is open below or a bound's first column is NULL. Implied by the leaf filter, so it
    changes no result; stated with plain literals of the column's type so that Spark pushes it to
    the parquet reader, which skips row groups (and prunes partitions) whose key statistics miss
    every range: on a table stored in key order, or partitioned by its first key column, with drift
    in a few key ranges (a replica behind on its newest keys, a reloaded day), the fetch reads
    those parts only. Strategy range only, a first key column whose literals render exactly
    (`_key_bound_literal`), and at most `_key_range_limit()` runs (a long disjunction defeats code
    generation: ADR 0008 amendment).
  -#}
  {% set limit = table_diff._key_range_limit() %}
  {% set first = spec['key'][0] %}
  {% set family = table_diff._type_family(first['type']) %}
  {% if limit == 0 or spec['strategy'] != 'range' or not table_diff._key_bound_sql(family, 'b') %}
    {{ return(none) }}
  {% endif %}
  {% set composite = spec['key'] | length > 1 %}
  {% set field = '.k1' if composite else '' %}
  {% set runs = run_query(
      "select min(leaf_id), " ~ table_diff._key_bound_sql(family, 'min_by(lower_bound, leaf_id)' ~ field) ~ ","
      ~ " " ~ table_diff._key_bound_sql(family, 'max_by(upper_bound, leaf_id)' ~ field) ~ ","
      ~ " max_by(upper_bound, leaf_id) is null"
      ~ " from (select r.leaf_id, r.lower_bound, r.upper_bound,"
      ~ " r.leaf_id - row_number() over (order by r.leaf_id) as run"
      ~ " from " ~ ranges ~ " as r left semi join (" ~ leaves_query ~ ") as l on r.leaf_id = l.leaf_id) as x"
      ~ " group by run order by 1 limit " ~ (limit + 1)).rows %}
  {% if runs | length == 0 or runs | length > limit %}
    {{ return(none) }}
  {% endif %}
  {% set column = '__td_k' ~ field %}
  {% set terms = [] %}
  {% for first_leaf, lower, upper, open_above in runs %}
    {% set lo = table_diff._key_bound_literal(first, lower) if first_leaf | int > 0 else none %}
    {% set hi = table_diff._key_bound_literal(first, upper) if not open_above else none %}
    {% if (first_leaf | int > 0 and lower is not none and lo is none) or (not open_above and upper is not none and hi is none) %}
      {#- A bound that does not render exactly: no predicate at all (it is only an optimisation). -#}
      {{ return(none) }}
    {% endif %}
    {% if not open_above and upper is none %}
      {#- A composite bound whose first column is NULL: the run's keys all have it NULL. -#}
      {% do terms.append(column ~ ' is null') %}
    {% else %}
      {% set parts = ([column ~ ' >= ' ~ lo] if lo else []) + ([column ~ (' <= ' if composite else ' < ') ~ hi] if hi else []) %}
      {% set within = parts | join(' and ') if parts else 'true' %}
      {% do terms.append((column ~ ' is null or ' ~ within) if lo is none else within) %}
    {% endif %}
  {% endfor %}
  {{ return('(' ~ terms | join(') or (') ~ ')') }}
{% endmacro %}


{% macro _key_bound_sql(family, value_sql) %}
  {#- A key bound as an exact string for `_key_bound_literal` (prefixed with 'x' so that the result
      table keeps it a string), or none for a type without an exact literal here (floats, whose NaN
      and -0.0 parquet statistics do not order like Spark; booleans; binary; timestamp_ntz). -#}
  {%- set text = {
      'integral': 'cast(' ~ value_sql ~ ' as string)',
      'decimal': 'cast(' ~ value_sql ~ ' as string)',
      'date': 'cast(unix_date(' ~ value_sql ~ ') as string)',
      'timestamp': 'cast(unix_micros(' ~ value_sql ~ ') as string)',
      'string': 'hex(' ~ value_sql ~ ')',
  }.get(family) -%}
  {{ return(("concat('x', " ~ text ~ ")") if text else none) }}
{% endmacro %}


{% macro _key_bound_literal(col, text) %}
  {#- The SQL literal of a key bound rendered by `_key_bound_sql`, in the column's type, or none when
      the text is not what that query renders (then no predicate is stated). -#}
  {%- if text is none or not (text ~ '').startswith('x') -%}{{ return(none) }}{%- endif -%}
  {%- set v = (text ~ '')[1:] -%}
  {%- set family = table_diff._type_family(col['type']) -%}
  {%- set re = modules.re -%}
  {%- if family == 'integral' and re.fullmatch('-?[0-9]{1,19}', v) -%}
    {{ return('cast(' ~ table_diff.bigint_literal(v) ~ ' as ' ~ col['type'] ~ ')') }}
  {%- elif family == 'decimal' and re.fullmatch('-?[0-9]{1,38}(\\.[0-9]{1,38})?', v) -%}
    {{ return('cast((' ~ v ~ 'BD) as ' ~ col['type'] ~ ')') }}
  {%- elif family == 'date' and re.fullmatch('-?[0-9]{1,10}', v) -%}
    {{ return('date_from_unix_date(' ~ v ~ ')') }}
  {%- elif family == 'timestamp' and re.fullmatch('-?[0-9]{1,19}', v) -%}
    {{ return('timestamp_micros(' ~ table_diff.bigint_literal(v) ~ ')') }}
  {%- elif family == 'string' and re.fullmatch('([0-9A-F]{2})*', v) -%}
    {{ return("cast(X'" ~ v ~ "' as string)") }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}
