{#-
  The inputs of a changed model (ADR 0043): the sources it reads, as production read them and as
  they are now. Production's relation was last written at some time T (its Delta / Iceberg log, or
  its newest data file); a Delta or Iceberg source has a version current at T, and rows then and
  now; a file table without versions has rows in files written after T. `diff_changes` reports
  this per model (so a reviewer knows when a difference may be the data, not the code, and pruning
  never trusts a model whose inputs moved), `changes_source_pins` turns it into the pins the
  same-inputs build reads its sources at, through `pinned_source`.
-#}

{% macro _changes_inputs(production, sources, pinned=none) %}
  {#- {'written_at': text or none, 'inputs': [{source, relation, format, version_then, version_now,
      rows_then, rows_now, rows_since, pinned, moved, note}]}: `moved` is true when the source
      holds other rows than at T, none when that cannot be known. -#}
  {% set written = table_diff.last_write_time(production) %}
  {% set out = [] %}
  {% for s in sources %}
    {% set rel = table_diff._changes_relation(s['relation']) %}
    {% set info = table_diff.table_version(rel) %}
    {% set i = {'source': s['name'], 'relation': rel | string, 'format': info['format'], 'version_then': none,
                'version_now': info['version'], 'rows_then': none, 'rows_now': none, 'rows_since': none,
                'pinned': s['name'] in (pinned or []), 'moved': none, 'note': none} %}
    {% if written is none %}
      {% do i.update({'note': "production's relation " ~ production ~ " has no write time (a view?): what its inputs held then is unknown"}) %}
    {% elif info['format'] in ['delta', 'iceberg'] %}
      {% set then = table_diff.version_at(rel, info['format'], written) %}
      {% do i.update({'version_then': then}) %}
      {% if then is none %}
        {% do i.update({'moved': true, 'rows_now': run_query('select count(*) from ' ~ rel).rows[0][0] | int,
                        'note': 'created after production built the model'}) %}
      {% elif then != info['version'] %}
        {% set counts = run_query('select (select count(*) from ' ~ rel ~ ' ' ~ table_diff.as_of_clause({'version': then})
            ~ '), (select count(*) from ' ~ rel ~ ')').rows[0] %}
        {% do i.update({'moved': true, 'rows_then': counts[0] | int, 'rows_now': counts[1] | int}) %}
      {% else %}
        {% do i.update({'moved': false}) %}
      {% endif %}
    {% elif info['format'] == 'view' %}
      {% do i.update({'note': 'a view: what it returned then is unknown'}) %}
    {% elif table_diff.file_modified_at(rel) is not none %}
      {% set counts = run_query('select count(*), count_if(_metadata.file_modification_time > '
          ~ table_diff._changes_time_sql(written) ~ ') from ' ~ rel).rows[0] %}
      {% do i.update({'rows_now': counts[0] | int, 'rows_since': counts[1] | int, 'moved': true if counts[1] | int > 0 else none,
                      'note': 'no versions (' ~ (info['format'] or 'unknown format') ~ '): rows deleted or rewritten in place since cannot be seen'}) %}
    {% else %}
      {% do i.update({'note': 'no versions and no file times: what it held then is unknown'}) %}
    {% endif %}
    {% do out.append(i) %}
  {% endfor %}
  {{ return({'written_at': (written | string) if written is not none else none, 'inputs': out}) }}
{% endmacro %}


{% macro _changes_time_sql(t) %}
  {#- A datetime the session returned as a timestamp expression: by its epoch microseconds (the
      session and Python agree on the instant, whatever the time zones), or a text as a cast. -#}
  {% if t.timestamp is defined %}{{ return('timestamp_micros(' ~ (t.timestamp() * 1000000) | round | int ~ ')') }}{% endif %}
  {{ return("cast(" ~ table_diff._sql_string(t | string) ~ " as timestamp)") }}
{% endmacro %}


{% macro _changes_inputs_note(found) %}
  {#- One sentence on a model's inputs, or none when none moved and none is pinned. -#}
  {% set pinned, moved, unknown = [], [], [] %}
  {% for i in found['inputs'] %}
    {% set counts = (' (rows ' ~ i['rows_then'] ~ ' → ' ~ i['rows_now'] ~ ')') if i['rows_then'] is not none else '' %}
    {% if i['pinned'] %}
      {% do pinned.append(i['source'] ~ ' at version ' ~ i['version_then'] ~ ((', now ' ~ i['version_now']) if i['moved'] else '')) %}
    {% elif i['moved'] and i['version_then'] is not none %}
      {% do moved.append(i['source'] ~ ' version ' ~ i['version_then'] ~ ' → ' ~ i['version_now'] ~ counts) %}
    {% elif i['moved'] and i['rows_since'] %}
      {% do moved.append(i['source'] ~ ': ' ~ i['rows_since'] ~ ' of its ' ~ i['rows_now'] ~ ' rows are in files written since') %}
    {% elif i['moved'] %}
      {% do moved.append(i['source'] ~ ' (' ~ i['note'] ~ ')') %}
    {% elif i['moved'] is none %}
      {% do unknown.append(i['source'] ~ ' (' ~ i['note'] ~ ')') %}
    {% endif %}
  {% endfor %}
  {% set parts = [] %}
  {% if pinned %}{% do parts.append('built from the inputs production read: ' ~ pinned | join(', ')) %}{% endif %}
  {% if moved %}
    {% do parts.append('inputs moved since production built it (' ~ found['written_at'] ~ '): ' ~ moved | join('; ')
        ~ ': part of the difference may be the data, not the code') %}
  {% endif %}
  {% if unknown %}{% do parts.append('inputs that may differ from what production read: ' ~ unknown | join('; ')) %}{% endif %}
  {{ return(parts | join('; ') or none) }}
{% endmacro %}


{#-
  table_diff.changes_source_pins: the source versions production read, per model, for the
  same-inputs build (`table-diff changes --same-inputs`). `models`: [{id, name, production
  ({database, schema, identifier}), sources ([{name: 'source_name.table_name', relation}])}].
  Logs one line `table_diff.changes_source_pins: <json>`: {model id: {source name: {version: n}}}
  for every Delta or Iceberg source that has a version current when production last wrote the
  model; the var `table_diff_source_pins` takes that mapping.
-#}
{% macro changes_source_pins(models) %}
  {% do table_diff._check_kwargs('changes_source_pins', kwargs, ['models']) %}
  {% if models is string or models is mapping or models is not iterable %}
    {{ table_diff._fail('changes_source_pins', 'models', models, "a list of {id, name, production, sources}",
        "table-diff changes --same-inputs writes it.") }}
  {% endif %}
  {% if not execute %}{{ return(none) }}{% endif %}
  {% set pins = {} %}
  {% for m in models %}
    {% set found = table_diff._changes_inputs(table_diff._changes_relation(m['production']), m.get('sources') or []) %}
    {% set mine = {} %}
    {% for i in found['inputs'] if i['version_then'] is not none %}
      {% do mine.update({i['source']: {'version': i['version_then']}}) %}
    {% endfor %}
    {% if mine %}{% do pins.update({m.get('id') or m['name']: mine}) %}{% endif %}
  {% endfor %}
  {% do log('table_diff.changes_source_pins: ' ~ tojson(pins), info=true) %}
  {{ return(none) }}
{% endmacro %}


{#-
  table_diff.pinned_source: `source()` reading a source at the version the var
  `table_diff_source_pins` names for the model being compiled ({model unique id: {'source_name.
  table_name': {version: n}}}), as the same-inputs build does; otherwise exactly `source()`. dbt
  lets only the root project override `source`, so a project opts in with one macro:
  `{% macro source(source_name, table_name) %}{{ return(table_diff.pinned_source(source_name, table_name)) }}{% endmacro %}`.
-#}
{% macro pinned_source(source_name, table_name) %}
  {% set relation = builtins.source(source_name, table_name) %}
  {% set pins = var('table_diff_source_pins', none) %}
  {% if not execute or not pins or model is not defined %}{{ return(relation) }}{% endif %}
  {% set pin = (pins.get(model.unique_id) or {}).get(source_name ~ '.' ~ table_name) %}
  {% if pin is none %}{{ return(relation) }}{% endif %}
  {{ return(relation ~ ' ' ~ table_diff.as_of_clause(pin)) }}
{% endmacro %}
