{#-
  table_diff.drift_rows: the differing rows of two relations in the shape of a pair's row diff,
  computed without a pipeline (the engine behind the `no_drift` generic test).
  0. With `quick_check` (default): one query computes a whole-table signature per side (one
     pass over each table, no grouping). Identical tables stop here: the returned SQL reads nothing.
  1. One query computes every leaf's signature on both sides (one pass over each table) and
     returns the mismatched leaves. Without `quick_check`, identical tables stop here.
  2. Otherwise the rows of the mismatched leaves only are fetched and joined (when most leaves
     differ, only the rows of the keys a narrow key/hash pass found different), cached once in a
     temporary view, counted per diff_type for the log line, and returned as `select * from` it.
     The package's on-run-end hook (`release_cached_views`) uncaches and drops those views when the
     invocation ends: the test's query reads the view after this macro returns, so it cannot.
-#}
{% macro drift_rows(source, target, primary_key, columns=none, exclude_columns=none, table_filter=none,
                    strategy='hash', block_count=none, block_size=none, normalize=none,
                    max_diff_rows=none, check_duplicate_keys=none, quick_check=true, keys_only=none,
                    source_as_of=none, target_as_of=none, thresholds=none, column_map=none, tolerance=none, arg_names=none,
                    allow_partial=false) %}
  {% set names = {'macro': 'drift_rows', 'source': 'source', 'target': 'target'} %}
  {% do names.update(arg_names or {}) %}
  {% do table_diff._check_kwargs(names['macro'], kwargs, [names['source'], names['target'], 'primary_key', 'columns',
      'exclude_columns', 'table_filter', 'strategy', 'block_count', 'block_size', 'normalize', 'max_diff_rows',
      'check_duplicate_keys', 'quick_check', 'keys_only', names['source'] ~ '_as_of', names['target'] ~ '_as_of',
      'thresholds', 'column_map', 'tolerance', 'allow_partial']) %}
  {% do table_diff._require_relation(names['macro'], names['source'], source) %}
  {#- A list of targets: each replica of the source checked against it, the source read once for
      the shared whole-table signatures (ADR 0028). -#}
  {% set replicas = table_diff._replica_targets(names['macro'], target, names['target']) %}
  {% if replicas is none %}
    {% do table_diff._require_relation(names['macro'], names['target'], target) %}
  {% endif %}
  {% set opts = table_diff._check_options(names['macro'], primary_key, columns, exclude_columns, table_filter,
      strategy, block_count, block_size, none, none, none, max_diff_rows, normalize, check_duplicate_keys, keys_only, column_map, tolerance) %}
  {% do opts.update({'source_as_of': source_as_of, 'target_as_of': target_as_of}) %}
  {% if quick_check is not boolean %}
    {{ table_diff._fail(names['macro'], 'quick_check', quick_check, "true or false",
        "Leave it out (true: one whole-table signature first) or set false when drift is expected.") }}
  {% endif %}
  {% set limits = table_diff._check_thresholds(names['macro'], thresholds) %}
  {% if allow_partial is not boolean %}
    {{ table_diff._fail(names['macro'], 'allow_partial', allow_partial, "true or false",
        "Leave it out (false: a result cut short at max_diff_rows is an error) or set true to keep the rows found.") }}
  {% endif %}
  {% do opts.update({'allow_partial': allow_partial}) %}
  {% do table_diff._sample_rows_var(names['macro']) %}
  {% if replicas is not none %}
    {% do table_diff._check_replica_options(names['macro'], opts, names['target']) %}
    {% do opts.update({'replicas': replicas}) %}
  {% endif %}
  {{ return(adapter.dispatch('drift_rows', 'table_diff')(source, target, opts, names, quick_check, limits)) }}
{% endmacro %}


{% macro default__drift_rows(source, target, opts, names, quick_check=true, limits=none) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff." ~ names['macro'] ~ ": not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__drift_rows(source, target, opts, names, quick_check=true, limits=none) %}
  {% if not execute %}
    {{ return("select cast(null as string) as diff_type where false") }}
  {% endif %}
  {% if opts.get('replicas') %}
    {{ return(table_diff._drift_rows_replicas(source, opts, names, quick_check, limits)) }}
  {% endif %}
  {% set spec = table_diff._resolve_spec(names['macro'], source, target, opts, names['source'], names['target']) %}
  {% set label = source ~ " vs " ~ target %}
  {#- The common case of a test is a pass: one whole-table signature per side (row count and the
      exact sums of both 64-bit row hashes, as a block's), with no per-block grouping and no leaf
      to compute. Equal: identical, done. Different: no block pass follows (it would make the row
      diff a third read of each table, ADR 0020); the row diff reads every row once. With
      check_duplicate_keys the blocks must be counted. -#}
  {% set started_at = table_diff._run_started_at() %}
  {% set whole_rows = none %}
  {% if quick_check and not spec.get('check_duplicate_keys') %}
    {% set whole = {} %}
    {% for row in run_query(table_diff._whole_signature_sql(spec, source, target)).rows %}
      {#- side, leaf_id, n_rows, n_keys, n_null_key_rows, then the four sums -#}
      {% do whole.update({row[0]: [row[2], row[5], row[6], row[7], row[8]]}) %}
    {% endfor %}
    {% if whole['source'] == whole['target'] %}
      {% do log("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": identical (" ~ whole['source'][0]
          ~ " rows each side; whole-table signatures equal).", info=true) %}
      {% do table_diff._note_drift_history(spec, 'completed', whole['source'][0], whole['target'][0], none, 0, none) %}
      {{ return(table_diff._row_diff_select(spec, none)) }}
    {% endif %}
    {#- A database side sends only the rows of differing leaves: the leaf pass follows (ADR 0047). -#}
    {% set whole_rows = [whole['source'][0], whole['target'][0]] if not spec.get('databases') else none %}
  {% endif %}
  {% set found = table_diff._drift_rows_compare(spec, source, target, names, label, whole_rows) %}
  {% if found['rows_sql'] is none %}
    {{ return(table_diff._row_diff_select(spec, none)) }}
  {% endif %}
  {% set view = 'td_cache_drift_' ~ local_md5(label ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff.cache_view(view, found['rows_sql']) %}
  {% set failing = table_diff._drift_rows_report(spec, source, target, names, label, started_at, limits, found, view,
      opts.get('allow_partial', false)) %}
  select * from {{ view }}
  {%- if limits %} where diff_type in ({{ failing | join(', ') }}){% endif %}
{% endmacro %}


{% macro _drift_rows_replicas(source, opts, names, quick_check, limits) %}
  {#- drift_rows against a list of replicas (ADR 0028): the replicas are resolved as a replica set's
      are (the same key and compared columns as the first, else an error naming the replica before
      any scan); one query computes the whole-table signatures of the source and every replica, so
      identical replicas cost one read each and the source one read in all; each replica that
      differs (or every replica, without the quick check) is then diffed as drift_rows diffs one
      target. The rows carry `target_name` first, the replica's table name. -#}
  {% set shared = table_diff._resolve_replicas(names['macro'], source, opts['replicas'], opts, names['source'], names['target']) %}
  {% set started_at = table_diff._run_started_at() %}
  {% set whole = {} %}
  {% if quick_check and not shared.get('check_duplicate_keys') %}
    {% set sides = [['source', source]] %}
    {% for r in opts['replicas'] %}{% do sides.append([shared['replicas'][loop.index0]['side'], r[1]]) %}{% endfor %}
    {% for row in run_query(table_diff._whole_signature_sql(shared, sides=sides)).rows %}
      {% do whole.update({row[0]: [row[2], row[5], row[6], row[7], row[8]]}) %}
    {% endfor %}
  {% endif %}
  {% set parts, drifted = [], [] %}
  {% for entry in shared['replicas'] %}
    {% set target, spec = opts['replicas'][loop.index0][1], entry['spec'] %}
    {% set label = source ~ " vs " ~ target %}
    {% if whole and whole[entry['side']] == whole['source'] %}
      {% do log("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": identical (" ~ whole['source'][0]
          ~ " rows each side; whole-table signatures equal" ~ ((", one read of " ~ source ~ " for " ~ shared['replicas'] | length ~ " replicas")
              if shared['replicas'] | length > 1 else "") ~ ").", info=true) %}
      {% do table_diff._note_drift_history(spec, 'completed', whole['source'][0], whole[entry['side']][0], none, 0, none) %}
    {% else %}
      {% set found = table_diff._drift_rows_compare(spec, source, target, names, label,
          [whole['source'][0], whole[entry['side']][0]] if whole else none) %}
      {% if found['rows_sql'] is not none %}
        {% do parts.append("select " ~ table_diff._sql_string(entry['name']) ~ " as target_name, d.* from (" ~ found['rows_sql'] ~ ") as d") %}
        {% do drifted.append([entry, target, label, found]) %}
      {% endif %}
    {% endif %}
  {% endfor %}
  {% if not parts %}
    {{ return("select cast(null as string) as target_name, d.* from (" ~ table_diff._row_diff_select(shared['replicas'][0]['spec'], none) ~ ") as d") }}
  {% endif %}
  {#- One cached view for every drifted replica's rows: Spark does not substitute a cached view
      defined with CTEs into a query that already holds another's, so a union of one cached view
      per replica would read the later replicas' tables again. -#}
  {% set view = 'td_cache_drift_' ~ local_md5(source ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
  {% do table_diff.cache_view(view, parts | join('\nunion all\n')) %}
  {% set conditions = [] %}
  {% for entry, target, label, found in drifted %}
    {% set name = table_diff._sql_string(entry['name']) %}
    {% set failing = table_diff._drift_rows_report(entry['spec'], source, target, names, label, started_at, limits, found,
        "(select * from " ~ view ~ " where target_name = " ~ name ~ ") as td_r", opts.get('allow_partial', false)) %}
    {% do conditions.append("(target_name = " ~ name ~ (" and diff_type in (" ~ failing | join(', ') ~ ")" if limits else "") ~ ")") %}
  {% endfor %}
  {{ return("select * from " ~ view ~ " where " ~ conditions | join(' or ')) }}
{% endmacro %}


{% macro _drift_rows_compare(spec, source, target, names, label, whole_rows) %}
  {#- The query of drift_rows' differing rows after its quick check: `whole_rows` [source rows,
      target rows] when the whole-table signatures differed (every row compared), none for the leaf
      pass first. {'rows_sql': the query, or none when the leaf pass found the tables identical
      (logged and recorded), 'sig': [source rows, target rows, leaves differing, their ids, the
      larger side's rows in them], 'leaf_count', 'whole'}. -#}
  {% if whole_rows is not none %}
    {#- One block, the whole table, differs: every row is compared, none needs a leaf. -#}
    {% set leaf_count = 1 %}
    {% set leaf_plan = {'kind': 'none', 'leaf_count': 1} %}
    {% set ranges_cte, ranges_from = '', '' %}
    {% set sig = whole_rows + [1, '0', whole_rows | map('int') | max] %}
  {% else %}
  {% set plan = table_diff._plan_pair(spec, source, target) %}
  {% set layout = plan['layout'] %}
  {% set leaf_count = layout['leaf_count'] %}
  {#- A database reads the bounds as literals (ADR 0047): the key sample is cut once, into a
      cached view (released by the on-run-end hook) that every query below reads, and that the
      leaf plan can inspect (a grid: the search carries the 16,384 bounds on every row). Else the
      ranges are a CTE (td_ranges), so no query can inspect them: search or hash leaves. -#}
  {% set database_ranges = none %}
  {% set database_side = (spec.get('databases') or {}).keys() | list | first %}
  {% if spec.get('databases') %}
    {% set database_ranges = 'td_cache_ranges_' ~ local_md5(label ~ invocation_id ~ modules.datetime.datetime.now().isoformat()) %}
    {% do table_diff.cache_view(database_ranges, table_diff._range_leaves_sql(spec, plan['larger'], plan['larger_side'], layout)) %}
  {% endif %}
  {% set leaf_plan = table_diff._leaf_plan(spec, database_ranges, leaf_count, introspect=database_ranges is not none) %}
  {% set ranges_cte %}
    {%- if spec['strategy'] == 'range' -%}
    td_ranges as (
      {{ ('select * from ' ~ database_ranges) if database_ranges else table_diff._range_leaves_sql(spec, plan['larger'], plan['larger_side'], layout) }}
    ),
    {%- endif -%}
  {% endset %}
  {% set signatures_sql %}
    with {{ ranges_cte }}
    {{ table_diff._block_hashes_ctes(spec, source, target, 'td_ranges', leaf_plan, database_leaves=none, database_ranges=database_ranges) }},
    td_cmp as (
      select
        coalesce(s.leaf_id, t.leaf_id) as leaf_id,
        coalesce(s.n_rows, 0) as source_rows,
        coalesce(t.n_rows, 0) as target_rows,
        coalesce(
          s.leaf_id is null or t.leaf_id is null
          or s.n_rows != t.n_rows or s.h1_hi != t.h1_hi or s.h1_lo != t.h1_lo
          or s.h2_hi != t.h2_hi or s.h2_lo != t.h2_lo
          or s.n_keys < s.n_rows or t.n_keys < t.n_rows,
          false
        ) as differs
        {%- if database_side %},
        {%- set d = 's' if database_side == 'source' else 't' %}
        named_struct('leaf_id', coalesce(s.leaf_id, t.leaf_id), 'n_rows', {{ d }}.n_rows, 'h1_hi', {{ d }}.h1_hi, 'h1_lo', {{ d }}.h1_lo,
          'h2_hi', {{ d }}.h2_hi, 'h2_lo', {{ d }}.h2_lo) as database_signature
        {%- endif %}
      from source_blocks as s
      full outer join target_blocks as t on s.leaf_id = t.leaf_id
    )
    select
      coalesce(sum(source_rows), 0) as source_rows,
      coalesce(sum(target_rows), 0) as target_rows,
      count_if(differs) as leaves_differing,
      coalesce(array_join(collect_list(if(differs, cast(leaf_id as string), null)), ','), '') as leaf_ids,
      coalesce(sum(if(differs, greatest(source_rows, target_rows), 0)), 0) as rows_differing
      {%- if database_side %},
      {#- The database side's signatures of the differing leaves (of every leaf, summed, when all
          differ): what the write check after the fetch compares with (`_database_leaves_changed`). -#}
      if(count_if(differs) >= {{ leaf_count }},
        to_json(array(named_struct('leaf_id', 0{% for f in ['n_rows', 'h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}, '{{ f }}', coalesce(sum(database_signature.{{ f }}), 0){% endfor %}))),
        to_json(collect_list(if(differs, database_signature, null)))) as database_signatures
      {%- endif %}
    from td_cmp
  {% endset %}
  {% set sig = run_query(signatures_sql).rows[0] %}
  {% if (sig[2] | int) == 0 %}
    {% do log("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": identical (" ~ sig[0] ~ " rows each side, "
        ~ leaf_count ~ " blocks compared).", info=true) %}
    {% do table_diff._note_drift_history(spec, 'completed', sig[0], sig[1], leaf_count, 0, none) %}
    {{ return({'rows_sql': none}) }}
  {% endif %}
  {% set ranges_from %}
    {%- if database_ranges -%}
    {{ database_ranges }}
    {%- elif spec['strategy'] == 'range' -%}
    ({{ table_diff._range_leaves_sql(spec, plan['larger'], plan['larger_side'], layout) }}) as td_ranges
    {%- endif -%}
  {% endset %}
  {% endif %}

  {% set leaves_query = "select explode(array(" ~ sig[3] ~ ")) as leaf_id" %}
  {#- Dense drift (var table_diff_dense_leaf_share): the differing keys first, on a narrow projection (as the pair's row_diff does). -#}
  {% set keys_view = table_diff._cache_differing_keys(spec, source, target, ranges_from, leaf_plan,
      leaves_query, sig[2] | int, selected_rows=sig[4] | int) %}
  {% set database_leaves = (sig[3].split(',') | map('int') | list if (sig[2] | int) < leaf_count else []) if spec.get('databases') else none %}
  {% set rows_sql %}
    with {{ ranges_cte }}
    {{ table_diff._block_hashes_ctes(spec, source, target, 'td_ranges', leaf_plan, database_leaves=database_leaves, database_ranges=database_ranges) }},
    td_leaves as ({{ leaves_query }}),
    {{ table_diff._row_diff_ctes(spec, table_diff._leaf_filter_cte(sig[2] | int, leaf_count), keys_view) }}
    {{ table_diff._row_diff_select(spec, 'td_diff') }}
  {% endset %}
  {#- A database side: what `_changed_sides` re-signs after the fetch (ADR 0047). -#}
  {% set database_check = none %}
  {% if database_side %}
    {% set database_check = {'ranges': database_ranges, 'leaves': sig[3], 'every': (sig[2] | int) == leaf_count,
        'signed': "(select inline(from_json(" ~ table_diff._sql_string(sig[5]) ~ ", 'array<struct<leaf_id:int,n_rows:bigint,"
          ~ "h1_hi:bigint,h1_lo:bigint,h2_hi:bigint,h2_lo:bigint>>')))"} %}
  {% endif %}
  {{ return({'rows_sql': rows_sql, 'sig': sig, 'leaf_count': leaf_count, 'whole': whole_rows is not none, 'database_check': database_check}) }}
{% endmacro %}


{% macro _drift_rows_report(spec, source, target, names, label, started_at, limits, found, view, allow_partial=false) %}
  {#- After the differing rows of `found` (_drift_rows_compare) are cached in `view` (a relation or
      a FROM item): the counts per kind, the log line with the most changed columns and sample
      rows, the check that no side moved during the run, the history row, the errors of a moved
      side or a result cut short, and the limits. Returns the failing kinds as SQL strings. -#}
  {% set sig, leaf_count = found['sig'], found['leaf_count'] %}
  {% set counts = {'added': 0, 'deleted': 0, 'modified': 0, 'duplicate_key': 0} %}
  {% set duplicate_source_rows = [0] %}
  {% for row in run_query("select diff_type, count(*), count_if(side = 'source') from " ~ view ~ " group by diff_type").rows %}
    {% do counts.update({row[0]: row[1] | int}) %}
    {% if row[0] == 'duplicate_key' %}{% do duplicate_source_rows.append(row[2] | int) %}{% endif %}
  {% endfor %}
  {% set total = counts.values() | sum %}
  {#- Which columns changed most (ADR 0021), of the keys stored once on each side: the model's rows
      that are neither deleted nor a duplicate key's. Not a share when the result is partial. -#}
  {% set changes = table_diff._column_changes(view, spec) if counts['modified'] > 0 else [] %}
  {% set matched_keys = none if total >= spec['max_diff_rows'] else (sig[0] | int) - counts['deleted'] - (duplicate_source_rows | sum) %}
  {% set per_class = table_diff._sample_rows_var(names['macro']) %}
  {% set samples = table_diff._diff_samples(view, spec, per_class) %}
  {% do log("table_diff." ~ names['macro'] ~ ": " ~ label ~ " DIFFER: "
      ~ counts['added'] ~ " added (only in " ~ names['target'] ~ "), " ~ counts['deleted'] ~ " deleted (only in "
      ~ names['source'] ~ "), " ~ counts['modified'] ~ " modified, "
      ~ counts['duplicate_key'] ~ " duplicate-key rows"
      ~ (" (stopped at max_diff_rows=" ~ spec['max_diff_rows'] ~ ": there may be more)" if total >= spec['max_diff_rows'] else "")
      ~ ("; most changed columns: " ~ table_diff._column_changes_text(changes, matched_keys) if changes else "")
      ~ "; rows " ~ sig[0] ~ " vs " ~ sig[1] ~ ", " ~ ("whole-table signatures differ, every row compared." if found['whole']
          else sig[2] ~ " of " ~ leaf_count ~ " blocks differ.")
      ~ " The failing rows carry diff_type and changed_columns; `dbt test --store-failures` keeps them in a table."
      ~ (("\nFirst rows of each kind (" ~ names['source'] ~ " -> " ~ names['target'] ~ "):\n"
          ~ table_diff._diff_samples_text(samples, per_class)) if samples else ""), info=true) %}
  {#- The rows were read a second time: a side written since the leaf pass would give a mixture of
      two states (ADR 0011). Checked by a count-like query per side; an error, never a verdict. -#}
  {% set changed = table_diff._changed_sides(names['macro'], spec, {'source': source, 'target': target},
      {'source': sig[0], 'target': sig[1]}, started_at, found.get('database_check')) %}
  {% do table_diff._note_drift_history(spec,
      'changed_during_run' if true in changed.values() else ('partial' if total >= spec['max_diff_rows'] else 'completed'),
      sig[0], sig[1], leaf_count, sig[2], counts) %}
  {% for side, arg in [('source', names['source']), ('target', names['target'])] %}
    {% if changed[side] is true %}
      {{ exceptions.raise_compiler_error("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": " ~ arg ~ " "
          ~ (source if side == 'source' else target) ~ " changed while the test ran (source_changed_during_run: "
          ~ "its rows or data files differ from the block pass), so the differing rows would mix two states of the "
          ~ "table. Run the test again when writes to it have stopped.") }}
    {% endif %}
  {% endfor %}
  {#- A result cut short at max_diff_rows can never reach a threshold above the limit, so it must
      not pass or merely warn under warn_if / error_if: it is an error whatever the thresholds,
      unless the caller takes partial counts (allow_partial: diff_changes reports them as such). -#}
  {% if total >= spec['max_diff_rows'] and not allow_partial %}
    {{ exceptions.raise_compiler_error("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": at least " ~ total
        ~ " rows differ and the result stopped at max_diff_rows=" ~ spec['max_diff_rows'] ~ ", so it is partial: "
        ~ "it cannot be held against warn_if / error_if. Raise max_diff_rows above the number of rows you expect "
        ~ "to differ (e.g. max_diff_rows: " ~ (spec['max_diff_rows'] * 10) ~ "), or fix the drift.") }}
  {% endif %}
  {#- Limits per kind of change (no_drift's max_added, ...): only the rows of a kind over its limit
      fail; unset means 0, so without limits every differing row fails. -#}
  {% set over = table_diff._over_thresholds(limits, counts, sig[0] | int) %}
  {% if limits %}
    {% do log("table_diff." ~ names['macro'] ~ ": " ~ label ~ ": "
        ~ (("over its limit: " ~ (over.values() | join('; '))) if over else "every kind of change within its limit")
        ~ " (limits: " ~ table_diff._limits_text(limits) ~ ").", info=true) %}
  {% endif %}
  {% set failing = ["''"] %}
  {% for kind in over %}{% do failing.append(table_diff._sql_string(kind)) %}{% endfor %}
  {{ return(failing) }}
{% endmacro %}
