{#-
  table_diff.block_hashes: the one full pass over each side. Per leaf and side: row count, distinct
  keys (with check_duplicate_keys, so duplicates are found even where both sides agree; otherwise
  n_keys = n_rows and the row diff finds duplicates in mismatched blocks), NULL-key rows,
  and the overflow-safe sums of both 64-bit row hashes (high and low 32 bits summed separately:
  exact up to 2^31 rows per leaf, under ANSI on or off). Coarser block signatures are sums of these,
  so the split step needs no further scan.

  Quick check (the pair's `quick_check`, ADR 0009): instead of the leaves, one whole-table
  signature per side, the same quantities with no leaf and no grouping (the grouping is what makes
  the leaf pass dear). The result is those two rows (leaf_id NULL). When they agree, the pair is
  identical; when they differ, no leaf pass follows (it would be a third read of each table with
  the row diff: ADR 0020): the split makes every block a unit and the row diff joins the full rows
  of both sides in one read. 'auto' runs the quick check only when this model's last result says
  the sides were identical: not on a first run (which groups leaves, so that drift is found with
  its blocks), and not while they differ, since drift tends to persist from run to run.
-#}
{% macro block_hashes(ranges, source, target, file_hashes=none) %}
  {% do table_diff._require_relation('block_hashes', 'ranges', ranges) %}
  {% do table_diff._require_relation('block_hashes', 'source', source) %}
  {#- `target`: one relation, or a replica set's list of them (ADR 0028). -#}
  {% for relation in table_diff._as_relation_list(target) %}
    {% do table_diff._require_relation('block_hashes', 'target', relation) %}
  {% endfor %}
  {% if file_hashes is not none %}
    {% do table_diff._require_relation('block_hashes', 'file_hashes', file_hashes) %}
  {% endif %}
  {{ return(adapter.dispatch('block_hashes', 'table_diff')(ranges, source, target, file_hashes)) }}
{% endmacro %}


{% macro default__block_hashes(ranges, source, target, file_hashes=none) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.block_hashes: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__block_hashes(ranges, source, target, file_hashes=none) %}
  {% if not execute %}
    {{ return("select 'source' as side, 0 as leaf_id") }}
  {% endif %}
  {#- The spec, the leaf count and the pass's start time in one query (ADR 0038). -#}
  {% set read = table_diff._read_ranges('block_hashes', ranges) %}
  {% set spec = read['spec'] %}
  {% if spec.get('replicas') %}
    {#- A replica set (ADR 0028): the source and every replica in one query, each read once. -#}
    {% set sides = table_diff._replica_sides('block_hashes', spec, source, target) %}
  {% else %}
    {% do table_diff._require_pair_side('block_hashes', 'source', source, spec) %}
    {% do table_diff._require_pair_side('block_hashes', 'target', target, spec) %}
    {% set sides = [['source', source], ['target', target]] %}
  {% endif %}
  {% if spec.get('track') or file_hashes is not none %}
    {{ return(table_diff._tracked_block_hashes(spec, ranges, file_hashes)) }}
  {% endif %}
  {% set leaf_count = read['leaf_count'] %}
  {#- The sides (besides the source) that take the whole-table signature this run. A replica set
      may mix: a replica found identical last time takes it while the others, and the source, are
      grouped into leaves, still in the one query; its replica_block_hashes then compares totals. -#}
  {#- A pair's key_ranges may have decided already, and then cut no leaf bounds (ADR 0031); when it
      read this model's last result to decide not to, that answer stands (ADR 0046). -#}
  {% if spec.get('quick_check_planned') %}
    {% set quick_sides = sides[1:] | map(attribute=0) | list %}
  {% elif spec.get('quick_check_decided') %}
    {% set quick_sides = [] %}
    {% do log("table_diff.block_hashes: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": quick check skipped"
        ~ " (quick_check='auto' and the last run found the sides different).", info=true) %}
  {% else %}
    {% set quick_sides = table_diff._quick_check_sides(spec, sides[1:] | map(attribute=0) | list) %}
  {% endif %}
  {% set quick = quick_sides | length == sides | length - 1 %}
  {% if quick and spec.get('databases') %}
    {#- A database side (ADR 0047): the quick check runs first, on its own; identical sides give
        this model their two signature rows as constants, drift the leaf pass, so that the row
        diff never fetches the database's every row. -#}
    {% set whole = run_query(table_diff._whole_signature_sql(spec, sides=sides)).rows %}
    {% set by_side = {} %}
    {% for r in whole %}{% do by_side.update({r[0]: r[2:] | list}) %}{% endfor %}
    {% set a, b = by_side['source'], by_side['target'] %}
    {% if a[0] == b[0] and a[3:] == b[3:] %}
      {% set rows = [] %}
      {% for r in whole %}
        {% set values = [] %}
        {% for v in r[2:] %}{% do values.append('cast(' ~ (v | int) ~ ' as bigint)') %}{% endfor %}
        {% do rows.append("select " ~ table_diff._sql_string(r[0]) ~ " as side, cast(null as int) as leaf_id, "
            ~ values[0] ~ " as n_rows, " ~ values[1] ~ " as n_keys, " ~ values[2] ~ " as n_null_key_rows, "
            ~ values[3] ~ " as h1_hi, " ~ values[4] ~ " as h1_lo, " ~ values[5] ~ " as h2_hi, " ~ values[6] ~ " as h2_lo") %}
      {% endfor %}
      select u.*, {{ table_diff._sql_string(spec['run_id']) }} as run_id, timestamp {{ table_diff._sql_string(read['read_at']) }} as started_at
      from ({{ rows | join(' union all ') }}) as u
    {% else %}
      {% do log("table_diff.block_hashes: " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": the quick check found the sides different:"
          ~ " the leaf signatures follow (a database side sends the rows of mismatched leaves only).", info=true) %}
      {% set quick, quick_sides = false, [] %}
    {% endif %}
  {% endif %}
  {% if not (quick and spec.get('databases')) %}
  {#- Stamped with the pair's run and the time this pass started (ADR 0011): the summary checks
      against it whether a side was written while the pair ran. The time is read with the spec
      (ADR 0038), before the quick check's query: never later than the pass starts, so a write
      during the run is still flagged (at worst one landing just before the pass is too). -#}
  {% set started_at = read['read_at'] %}
  select
    u.*,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    timestamp {{ table_diff._sql_string(started_at) }} as started_at
  from (
  {% if quick %}
  {{ table_diff._whole_signature_sql(spec, sides=sides) }}
  {% else %}
  {% set leafed = sides | rejectattr(0, 'in', quick_sides) | list %}
  with
  {{ table_diff._side_blocks_ctes(spec, leafed, ranges, table_diff._leaf_plan(spec, ranges, leaf_count)) }}
  {% for side, relation in leafed %}
  {{ 'union all' if not loop.first }}
  select * from {{ side }}_blocks
  {% endfor %}
  {% if quick_sides %}
  union all
  {{ table_diff._whole_signature_sql(spec, sides=sides | selectattr(0, 'in', quick_sides) | list) }}
  {% endif %}
  {% endif %}
  ) as u
  {% endif %}
{% endmacro %}


{% macro _tracked_block_hashes(spec, ranges, file_hashes) %}
  {#- A tracked pair's leaf signatures (ADR 0019): sums over the files of its changes track, which
      this run's file_hashes brought up to date. No scan of either side. -#}
  {% if file_hashes is none or not spec.get('track') %}
    {{ table_diff._fail('block_hashes', 'file_hashes', file_hashes, "file_hashes exactly when the pair has track: true",
        "Pass file_hashes=ref('<pair>__file_hashes') with track=true in the pair's key_ranges, or neither (table-diff scaffold pair ... --track writes both).") }}
  {% endif %}
  {% do table_diff._require_run('block_hashes', 'file_hashes', file_hashes, spec) %}
  select
    side,
    leaf_id,
    sum(n_rows) as n_rows,
    sum(n_keys) as n_keys,
    sum(n_null_key_rows) as n_null_key_rows,
    sum(h1_hi) as h1_hi,
    sum(h1_lo) as h1_lo,
    sum(h2_hi) as h2_hi,
    sum(h2_lo) as h2_lo,
    {{ table_diff._sql_string(spec['run_id']) }} as run_id,
    min(started_at) as started_at
  from {{ file_hashes }}
  group by side, leaf_id
{% endmacro %}
