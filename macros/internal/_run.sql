{#-
  One run of a pair (ADR 0011). `__ranges` starts a run: its spec carries `run_id` (the dbt
  invocation that built it), and every later model of the pair stamps that id on each of its rows
  and refuses an input stamped by another run. So a run that failed or was killed at any model
  never yields a summary that disagrees with its row diff: the next model built on the
  half-replaced outputs fails with the stale table's name, and readers (the CLI, the report) check
  the stamps and the summary's counts before they show anything. When the pair's tables are Delta
  (ADR 0015) the summary also names the version of each table it read (`_pair_table_versions`),
  and readers read those versions: a killed run then leaves the last result readable, not stale.

  A Delta or Iceberg side is pinned instead: `__ranges` resolves its version once (`_pin_side`) and
  every pass reads `VERSION AS OF` it, so a commit during the run never reaches the result.
  A table written during a run (plain file tables: no snapshot to pin): the block pass records
  when it started; when the row fetch read rows again, the summary counts each side once more
  (`count(*)` and the newest data file's modification time from `_metadata`: no column is decoded
  unless table_filter needs one) and flags the side when the count moved or a data file is newer
  than the block pass.
-#}

{% macro _run_cache() %}
  {#- A dict that lives as long as one dbt invocation and is shared by every node and hook of it
      (ADR 0038): kept in `graph`, the manifest's flat graph, which dbt hands to every context,
      under this invocation's id (a manifest passed to `dbtRunner` again keeps its flat graph, so
      a later invocation starts with an empty dict). Only for answers that cannot change within
      an invocation (the session's Delta support); never for a table's contents, which a model of
      the same run may rewrite, except under the run id that wrote them (a pair's ranges hold one
      run's bounds: `_leaf_plan`, ADR 0046). -#}
  {% set held = graph.get('table_diff_run_cache') %}
  {% if held is not mapping or held.get('invocation_id') != invocation_id %}
    {% set held = {'invocation_id': invocation_id, 'answers': {}} %}
    {% do graph.update({'table_diff_run_cache': held}) %}
  {% endif %}
  {{ return(held['answers']) }}
{% endmacro %}


{% macro _require_run(macro_name, arg, relation, spec, from_item=none) %}
  {#- Every row of `relation` (a model of this pair) carries this run's id; an empty table passes
      (its emptiness is checked against the summary's counts by the readers). `from_item`: what is
      read instead of the relation itself (the relation at a version). -#}
  {% do table_diff._require_runs(macro_name, [[arg, relation, from_item, none]], spec) %}
{% endmacro %}


{% macro _require_runs(macro_name, inputs, spec) %}
  {#- `_require_run` for several tables of the pair, their run ids read in one query (ADR 0038):
      `inputs` [[arg, relation, from_item or none, lower-case column names or none], ...]; the
      names when the caller has described the table already, else it is described here. Fails on
      the first input (in order) built by another version or holding another run. -#}
  {% do table_diff._require_run_columns(macro_name, inputs, spec) %}
  {% set parts = [] %}
  {% for arg, relation, from_item, known in inputs %}
    {% do parts.append("select " ~ loop.index0 ~ " as i, " ~ table_diff._other_run_sql(spec, 'run_id') ~ " as other from "
        ~ (from_item or relation)) %}
  {% endfor %}
  {% if parts | length == 0 %}{{ return(none) }}{% endif %}
  {% set others = {} %}
  {% for row in run_query(parts | join(' union all ')).rows %}
    {% if row[1] is not none %}{% do others.update({row[0] | int: row[1]}) %}{% endif %}
  {% endfor %}
  {% do table_diff._fail_on_other_runs(macro_name, inputs, spec, others) %}
{% endmacro %}


{% macro _require_run_columns(macro_name, inputs, spec) %}
  {#- The first half of `_require_runs`: every input has a `run_id` column (a table built by this
      version of table_diff) and the spec a run. A model that reads its inputs' run ids in a query
      of its own (the summary's and the column statistics' one query, ADR 0045) calls this, then
      `_fail_on_other_runs` with what it read through `_other_run_sql`. -#}
  {% set run = spec.get('run_id') %}
  {% for arg, relation, from_item, known in inputs %}
    {% set names = known if known is not none
        else adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list %}
    {% if 'run_id' not in names or run is none %}
      {{ table_diff._fail(macro_name, arg, relation, "a table built by this version of table_diff, stamped with its run",
          "Rebuild the whole pair from its ranges model: dbt build --select <pair>__ranges+.") }}
    {% endif %}
  {% endfor %}
{% endmacro %}


{% macro _other_run_sql(spec, column, condition=none) %}
  {#- An aggregate: a run id of `column` other than this run's, over the rows where `condition`
      holds (all rows without one); NULL when every such row holds this run. -#}
  {{ return("max(if(" ~ ((condition ~ " and ") if condition else "") ~ column ~ " is distinct from "
      ~ table_diff._sql_string(spec.get('run_id')) ~ ", " ~ column ~ ", null))") }}
{% endmacro %}


{% macro _fail_on_other_runs(macro_name, inputs, spec, others) %}
  {#- The second half of `_require_runs`: `others` {input's index: another run id it holds}; fails
      on the first such input, in the order of `inputs`. -#}
  {% for arg, relation, from_item, known in inputs %}
    {% set other = others.get(loop.index0) %}
    {% if other is not none %}
      {{ table_diff._fail(macro_name, arg, relation, "the output of this pair's current run '" ~ spec.get('run_id') ~ "'",
          "It holds run '" ~ other ~ "': the run that started at the pair's ranges model failed or was stopped before "
          ~ "this table was rebuilt. Rebuild the pair from its ranges model: dbt build --select <pair>__ranges+.") }}
    {% endif %}
  {% endfor %}
{% endmacro %}


{% macro _run_started_at() %}
  {#- The driver's clock as Spark sees it (the same clock that writes a local table's files). -#}
  {{ return(run_query("select cast(current_timestamp() as string)").rows[0][0]) }}
{% endmacro %}


{% macro _changed_sides(macro_name, spec, relations, rows_at_start, started_at, outputs=none) %}
  {#- Sides whose table moved since `started_at`: {side: true|false|none}; false for a side pinned
      to a version (Delta, Iceberg: nothing written later is read); none where the
      relation has no file metadata (`file_modified_at`: a view, a non-file source), which is logged. One count-like
      query over both sides: row count (after table_filter) and the newest data file.
      A database side, given the pair's `outputs` ({block_hashes, block_split, ranges}): whether
      the leaves whose rows were fetched changed since the block pass (`_database_leaves_changed`,
      ADR 0047). -#}
  {% set checked = {} %}
  {% set parts = [] %}
  {% for side, relation in relations.items() %}
    {% set pin = (spec.get('pins') or {}).get(side) or {} %}
    {% set db = (spec.get('databases') or {}).get(side) %}
    {% set modified_at = table_diff.file_modified_at(relation) if pin.get('version') is none and pin.get('timestamp') is none and not db else none %}
    {% if db and outputs %}
      {% do checked.update({side: table_diff._database_leaves_changed(spec, side, outputs)}) %}
    {% elif pin.get('version') is not none or pin.get('timestamp') is not none %}
      {#- Read at one version by every pass: a write during the run cannot reach the result. -#}
      {% do checked.update({side: false}) %}
    {% elif modified_at %}
      {#- A side read under a column_map: its file times selected beside its renamed columns, so the
          filter (in the source's names) applies as in every other scan. -#}
      {% set projection = (spec.get('projections') or {}).get(side) %}
      {% set from_item = table_diff._projected_from(relation, none, projection, [modified_at ~ ' as __td_modified_at']) if projection else relation %}
      {% do parts.append("select '" ~ side ~ "' as side, count(*) as n, max(" ~ ('__td_modified_at' if projection else modified_at)
          ~ ") >= timestamp " ~ table_diff._sql_string(started_at) ~ " as newer from " ~ from_item ~ " " ~ table_diff._where(spec)) %}
    {% else %}
      {% do checked.update({side: none}) %}
      {% do log("table_diff." ~ macro_name ~ ": " ~ relation ~ " exposes no file metadata (a view or a non-file source): "
          ~ "a write to it during the run cannot be detected.", info=true) %}
    {% endif %}
  {% endfor %}
  {% if parts | length > 0 %}
    {% for row in run_query(parts | join(' union all ')).rows %}
      {% do checked.update({row[0]: (row[1] | int) != (rows_at_start[row[0]] | int) or row[2] is true}) %}
    {% endfor %}
  {% endif %}
  {{ return(checked) }}
{% endmacro %}


{% macro _require_pair_side(macro_name, arg, relation, spec) %}
  {#- The relation a downstream model of a pair reads as `arg` ('source' or 'target') is the one its
      ranges model resolved (and pinned): never another table's version applied to this one. -#}
  {% if (relation | string) != spec[arg] %}
    {{ table_diff._fail(macro_name, arg, relation, "the pair's " ~ arg ~ " " ~ spec[arg] ~ " (as recorded by " ~ spec.get('ranges', 'its ranges model') ~ ")",
        "Pass the same relation to every model of the pair, or rebuild the pair from its ranges model: dbt build --select <pair>__ranges+.") }}
  {% endif %}
{% endmacro %}


{% macro _pair_table_versions(relations, columns=none) %}
  {#- {name: current version} of a pair's tables (Delta; none for a table without versions).
      Metadata only (`table_version`). `columns`, a dict: filled with {name: lower-case column
      names} where `table_version` read them with the version (spark__: the same DESCRIBE, so the
      summary's run checks describe no table twice, ADR 0038). -#}
  {% set versions = {} %}
  {% for name, relation in relations.items() %}
    {% set v = table_diff.table_version(relation) %}
    {% do versions.update({name: v['version'] if v['format'] == 'delta' else none}) %}
    {% if columns is not none and v.get('columns') is not none %}
      {% do columns.update({name: v['columns'] | map('lower') | list}) %}
    {% endif %}
  {% endfor %}
  {{ return(versions) }}
{% endmacro %}
