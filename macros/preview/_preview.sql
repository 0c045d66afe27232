{#- The cost preview's counting, warnings and report (preview_pair.sql gathers what they read). -#}

{% macro _preview_passes(spec, report) %}
  {#-
    Passes over each side's data a run makes, counted as the pipeline runs them (ADR 0018), for
    each case: identical sides, drift in fewer leaves than the dense share (sparse), drift in at
    least that many (dense); with and without the quick check. A pass is one scan of a side:
    - the row count for the layout, when no side can be sized (`_estimate_sides`), on the first side;
    - the key sample (strategy range), on the larger side, key columns only (key_ranges), unless
      key_ranges plans the quick check (no bound is used then, ADR 0031: not with a changes track
      or more level-0 blocks than max_diff_rows);
    - the whole-table signature (quick check), each side (block_hashes);
    - the leaf signatures, each side, without the quick check (with it, drift sends the row diff
      over every row: no leaf pass, ADR 0020);
    - the narrow key/hash pass, each side (row_diff's cached differing keys, ADR 0033), where the
      row diff is dense: drift without the quick check in at least the dense share of the leaves,
      or any drift the quick check found (its units are every leaf), unless the share is above 1;
    - the row fetch, each side, when anything differs (row_diff; on few key ranges it may read only
      some row groups or partitions: ADR 0010);
    - the change check, a count-like query on each side that is not pinned to a version and has
      file metadata, when anything differs (diff_summary, ADR 0011).
  -#}
  {% set planned = report['layout'] %}
  {#- A run that takes the quick check cuts no key sample where key_ranges may plan it (ADR 0031). -#}
  {% set sample_skipped = table_diff._quick_check_plannable(spec, planned) %}
  {% set out = {} %}
  {% for quick in [true, false] %}
    {% set cases = {} %}
    {#- Sparse drift needs fewer differing leaves than the dense share, dense drift at least that
        many: with one leaf (or a share above 1) one of them cannot happen (none). -#}
    {% set possible = {'identical': true, 'drifted_sparse': report['dense_leaves'] > 1,
                       'drifted_dense': report['dense_leaves'] <= planned['leaf_count']} %}
    {% for case in ['identical', 'drifted_sparse', 'drifted_dense'] %}
      {% set n = {'source': 0, 'target': 0} %}
      {% set steps = [] %}
      {% set drifted = case != 'identical' %}
      {% set plan = [
          ('layout row count', [planned['counted_side']] if planned['counted_side'] else []),
          ('key sample', [planned['larger_side']] if spec['strategy'] == 'range' and not (quick and sample_skipped) else []),
          ('whole-table signature', ['source', 'target'] if quick else []),
          ('leaf signatures', ['source', 'target'] if not quick else []),
          ('narrow key/hash pass', ['source', 'target'] if ((case == 'drifted_dense' and not quick)
              or (drifted and quick and report['dense_leaves'] <= planned['leaf_count'])) and not spec.get('databases') else []),
          ('row fetch', ['source', 'target'] if drifted else []),
          ('change check', ['source', 'target'] | select('in', table_diff._preview_checked_sides(report)) | list if drifted else []),
      ] %}
      {% for step, on in plan %}
        {% for side in on %}
          {% do n.update({side: n[side] + 1}) %}
          {% do steps.append(step ~ ' (' ~ side ~ ')') %}
        {% endfor %}
      {% endfor %}
      {% do cases.update({case: {'source': n['source'], 'target': n['target'], 'total': n['source'] + n['target'], 'steps': steps}
          if possible[case] else none}) %}
    {% endfor %}
    {% do out.update({'with_quick_check' if quick else 'without_quick_check': cases}) %}
  {% endfor %}
  {% set mode = spec['quick_check'] %}
  {% do out.update({'quick_check_runs': 'never (check_duplicate_keys)' if spec['check_duplicate_keys']
      else ('always' if mode is true else ('never' if mode is false else 'when the last run found the sides identical, or most leaves different and fetched every row (not on a first run)'))}) %}
  {{ return(out) }}
{% endmacro %}


{% macro _preview_checked_sides(report) %}
  {% set out = [] %}
  {% for side in ['source', 'target'] %}{% if report['sides'][side]['change_check'] %}{% do out.append(side) %}{% endif %}{% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _preview_warnings(spec, report) %}
  {#- What a run would do worse than it could, with the fix: no statistics, a key with few distinct
      values, a column that dominates the bytes, a table_filter that prunes no partition. -#}
  {% set warnings = [] %}
  {% set planned = report['layout'] %}
  {% if planned['counted_side'] %}
    {% do warnings.append("no side can be sized: the run counts the rows of " ~ report['sides'][planned['counted_side']]['relation']
        ~ " once (one more pass); ANALYZE TABLE ... COMPUTE STATISTICS on the table avoids it") %}
  {% endif %}
  {% set key_names = spec['key'] | map(attribute='name') | list %}
  {% for side in ['source', 'target'] %}
    {% set s = report['sides'][side] %}
    {% set rel = s['relation'] %}
    {#- Delta and Iceberg are v2 tables, which ANALYZE TABLE refuses: no warning to act on. -#}
    {% if s['rows_statistics'] is none and s['format'] not in ['delta', 'iceberg'] %}
      {% if s['format'] == 'view' %}
        {% do warnings.append("no statistics on " ~ rel ~ " (a view): run ANALYZE TABLE <t> COMPUTE STATISTICS on the tables it reads") %}
      {% else %}
        {% do warnings.append("no statistics on " ~ rel ~ ": run ANALYZE TABLE " ~ rel ~ " COMPUTE STATISTICS (its size is estimated from "
            ~ s['estimate_from'] ~ "; add FOR COLUMNS " ~ key_names | join(', ') ~ " to know the key's distinct values)") %}
      {% endif %}
    {% endif %}
    {#- The key: distinct values (an upper bound for a composite key: the product per column). -#}
    {% set ns = namespace(distinct=1, known=true) %}
    {% for k in key_names %}
      {% set cs = s['column_stats'].get(k) %}
      {% if cs and cs.get('distinct_count') is not none %}{% set ns.distinct = ns.distinct * [cs['distinct_count'], 1] | max %}{% else %}{% set ns.known = false %}{% endif %}
    {% endfor %}
    {% set distinct = [ns.distinct, s['rows_statistics']] | min if ns.known and s['rows_statistics'] is not none else none %}
    {% do s.update({'key_distinct': distinct}) %}
    {% if distinct is not none %}
      {% set reasons = [] %}
      {% if distinct * 2 < s['rows_statistics'] %}
        {% do reasons.append("fewer than half as many as its " ~ s['rows_statistics'] ~ " rows: it is not unique, and every row of a repeated key is reported as duplicate_key") %}
      {% endif %}
      {% if spec['strategy'] == 'range' and distinct < planned['leaf_count'] %}
        {% do reasons.append("fewer than the " ~ planned['leaf_count'] ~ " leaves planned: a range layout cuts at most " ~ distinct ~ " leaves, so leaves are larger and a difference costs more rows fetched (set block_count lower, or use strategy hash)") %}
      {% endif %}
      {% if reasons %}
        {% do warnings.append("key (" ~ key_names | join(', ') ~ ") has about " ~ distinct ~ " distinct values on " ~ rel ~ ": " ~ reasons | join('; ')) %}
      {% endif %}
    {% endif %}
    {#- A wide column: its average length against the row's (column statistics), else binary by type. -#}
    {% set widths = [] %}
    {% for c in spec['key'] + spec['columns'] %}
      {% set cs = s['column_stats'].get(c['name']) %}
      {% do widths.append((c['name'], cs.get('avg_col_len') if cs else none, c['type'])) %}
    {% endfor %}
    {% if widths | length > 1 and widths | map(attribute=1) | select('none') | list | length == 0 %}
      {% set total = [widths | sum(attribute=1), 1] | max %}
      {% for name, width, type in widths if width * 2 >= total %}
        {% do warnings.append("column " ~ name ~ " is " ~ width ~ " of the " ~ total ~ " bytes of an average row of " ~ rel ~ " ("
            ~ (100 * width / total) | round | int ~ "%): every signature pass reads and hashes it; exclude_columns=['" ~ name
            ~ "'] or a view with a hash of it would make each pass cheaper") %}
      {% endfor %}
    {% elif widths | length > 1 %}
      {% for name, width, type in widths if width is none and table_diff._type_family(type) == 'binary' %}
        {% do warnings.append("column " ~ name ~ " (" ~ type ~ ") of " ~ rel ~ " may dominate the bytes read; its width is unknown: ANALYZE TABLE "
            ~ rel ~ " COMPUTE STATISTICS FOR COLUMNS " ~ name ~ " measures it") %}
      {% endfor %}
    {% endif %}
    {% set p = s['pruning'] %}
    {% if p is not none %}
      {% if not s['partition_columns'] %}
        {% do warnings.append("table_filter prunes no partition of " ~ rel ~ ": it is not partitioned, so every pass reads all of it and filters the rows") %}
      {% elif p['partition_filters'] is none %}
        {#- No file scan in the plan (an Iceberg table): whether it prunes is not told by EXPLAIN. -#}
      {% elif not p['partition_filters'] %}
        {% do warnings.append("table_filter prunes no partition of " ~ rel ~ ": it names no partition column (" ~ s['partition_columns'] | join(', ')
            ~ "), so every pass reads " ~ (("all " ~ p['partitions_total'] ~ " partitions") if p['partitions_total'] is not none else "every partition")) %}
      {% elif p['partitions_total'] is not none and p['partitions_read'] == p['partitions_total'] %}
        {% do warnings.append("table_filter prunes no partition of " ~ rel ~ ": its partition filter keeps all " ~ p['partitions_total'] ~ " partitions") %}
      {% endif %}
    {% endif %}
  {% endfor %}
  {{ return(warnings) }}
{% endmacro %}


{% macro _preview_bytes(n) %}
  {% if n is none %}{{ return('unknown') }}{% endif %}
  {% set ns = namespace(v=n | float, unit='B') %}
  {% for u in ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'] if ns.v >= 1024 %}{% set ns.v = ns.v / 1024 %}{% set ns.unit = u %}{% endfor %}
  {{ return(((ns.v | round(1)) ~ ' ' ~ ns.unit) if ns.unit != 'B' else ((n | int) ~ ' B')) }}
{% endmacro %}


{% macro _preview_log(report) %}
  {#- The readable report, then the whole report as one JSON line (`table-diff preview` reads it). -#}
  {% set lines = ["table_diff.preview_pair " ~ report['pair'] ~ ": " ~ report['source'] ~ " (source) vs " ~ report['target']
      ~ " (target); read nothing (catalog statistics and EXPLAIN COST only)"] %}
  {% for side in ['source', 'target'] %}
    {% set s = report['sides'][side] %}
    {% set rows = (s['rows_statistics'] ~ ' rows (statistics)') if s['rows_statistics'] is not none
        else ('rows unknown (no statistics; ANALYZE TABLE does not take ' ~ s['format'] ~ ' tables)' if s['format'] in ['delta', 'iceberg']
        else 'rows unknown (no statistics)') %}
    {% set parts = [rows, table_diff._preview_bytes(s['bytes_statistics'] if s['bytes_statistics'] is not none else s['bytes_plan']) ~ ' on disk'] %}
    {% do parts.append(('partitioned by ' ~ s['partition_columns'] | join(', ')) if s['partition_columns'] else 'not partitioned') %}
    {% if s['pruning'] and s['pruning']['partition_filters'] is none and s['partition_columns'] %}
      {% do parts.append('whether table_filter prunes partitions: unknown (no file scan in the plan)') %}
    {% elif s['pruning'] and s['pruning']['partitions_total'] is not none %}
      {% do parts.append('table_filter reads ' ~ s['pruning']['partitions_read'] ~ ' of ' ~ s['pruning']['partitions_total'] ~ ' partitions') %}
    {% endif %}
    {% if s['pinned'] %}{% do parts.append('read ' ~ s['pinned']) %}{% endif %}
    {% do parts.append('key distinct values ' ~ (s['key_distinct'] if s['key_distinct'] is not none else 'unknown (no column statistics)')) %}
    {% do lines.append("  " ~ "%-7s" | format(side) ~ s['relation'] ~ " (" ~ (s['format'] or 'relation') ~ "): " ~ parts | join('; ')) %}
    {% if s.get('database') %}
      {% do lines.append("          a table of its database (" ~ s['database'] ~ ", about " ~ s['rows_estimate'] ~ " rows by " ~ s['estimate_from']
          ~ "): every pass over it runs in the database; only a row per leaf, and the rows of mismatched leaves, cross") %}
    {% endif %}
  {% endfor %}
  {% set l = report['layout'] %}
  {% do lines.append("  layout  strategy " ~ report['strategy'] ~ ": " ~ l['block_count'] ~ " blocks, " ~ l['depth'] ~ " split levels, "
      ~ l['leaf_count'] ~ " leaves, planned from " ~ l['estimated_rows'] ~ " rows (larger side: " ~ l['larger_side']
      ~ (("; key sample: " ~ (l['sample_fraction'] * 100) | round(2) ~ "% of its keys") if report['strategy'] == 'range' else "") ~ ")") %}
  {% set p = report['passes'] %}
  {% do lines.append("  passes over the data, source + target (quick_check " ~ report['quick_check'] ~ ": it runs " ~ p['quick_check_runs'] ~ "):") %}
  {% do lines.append("    " ~ "%-44s%-22s%s" | format('case', 'with quick check', 'without')) %}
  {% set labels = {'identical': 'identical', 'drifted_sparse': 'drifted' if report['dense_leaves'] > l['leaf_count']
                       else 'drifted, fewer than ' ~ report['dense_leaves'] ~ ' leaves differ',
                   'drifted_dense': 'drifted, ' ~ report['dense_leaves'] ~ ' or more leaves differ'} %}
  {% for case in ['identical', 'drifted_sparse', 'drifted_dense'] %}
    {% set cells = [] %}
    {% for count in [p['with_quick_check'][case], p['without_quick_check'][case]] %}
      {% do cells.append((count['total'] ~ ' (' ~ count['source'] ~ ' + ' ~ count['target'] ~ ')') if count else 'cannot happen') %}
    {% endfor %}
    {% do lines.append("    " ~ "%-44s%-22s%s" | format(labels[case], cells[0], cells[1])) %}
  {% endfor %}
  {% set most = p['with_quick_check']['drifted_dense'] or p['with_quick_check']['drifted_sparse'] %}
  {% do lines.append("    the passes (drifted, with quick check): " ~ most['steps'] | join(', ')) %}
  {% for side in ['source', 'target'] %}
    {% set s = report['sides'][side] %}
    {% if s['rows_statistics'] is not none and s['rows_plan'] is none and s['rows_estimate'] is not none %}
      {% do lines.append("  note: the layout is planned from " ~ s['relation'] ~ "'s " ~ s['estimate_from'] ~ " (" ~ s['rows_estimate']
          ~ " rows), not its analyzed " ~ s['rows_statistics'] ~ ": EXPLAIN COST shows the row count only with spark.sql.cbo.enabled") %}
    {% endif %}
  {% endfor %}
  {% do lines.append("  changes track: " ~ report['changes_track']) %}
  {% for w in report['warnings'] %}{% do lines.append("  warning: " ~ w) %}{% endfor %}
  {% if not report['warnings'] %}{% do lines.append("  no warnings") %}{% endif %}
  {% do log(lines | join('\n'), info=true) %}
  {% do log("table_diff.preview_pair json: " ~ tojson(report), info=true) %}
{% endmacro %}
