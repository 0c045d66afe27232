{#-
  table_diff.apply_repair: write a pair's repair (`NAME__repair`, built by `repair_rows`) into the
  side it repairs. Never run implicitly: `dbt run-operation table_diff.apply_repair --args "{pair: NAME}"`.
  Refuses, before writing anything, when the pair's last run is not a complete one (partial,
  changed during the run, failed or stale), when the repair table is of another run, when the
  written side was read at a past version (`*_as_of`), or when it changed since the diff read it
  (Delta / Iceberg: its current version is not the pinned one; other file tables: a newer data
  file or another row count). Delta Lake and Iceberg: one `MERGE INTO` on the differing keys only,
  one commit. Other tables only with `rewrite=true`: the whole table is rewritten through a
  staging table (not atomic: docs/decisions/0017-repair.md). `dry_run=true` logs the statement and
  the counts and writes nothing.
-#}
{% macro apply_repair(pair, rewrite=false, dry_run=false) %}
  {{ return(adapter.dispatch('apply_repair', 'table_diff')(pair, rewrite, dry_run)) }}
{% endmacro %}


{% macro default__apply_repair(pair, rewrite, dry_run) %}
  {{ exceptions.raise_compiler_error("table_diff.apply_repair: not implemented for adapter '" ~ adapter.type()
      ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
{% endmacro %}


{% macro spark__apply_repair(pair, rewrite, dry_run) %}
  {% if not execute %}{{ return(none) }}{% endif %}
  {% set m = 'apply_repair' %}
  {% if pair is not string or pair | trim == '' %}
    {{ table_diff._fail(m, 'pair', pair, "the name of a pair scaffolded with --repair (its models are NAME__ranges ... NAME__repair)",
        'Call it as: dbt run-operation table_diff.apply_repair --args "{pair: orders_replica}"') }}
  {% endif %}
  {% set rel = {} %}
  {% for suffix in ['repair', 'ranges', 'block_hashes', 'summary'] %}
    {% do rel.update({suffix: table_diff._pair_model_relation(m, pair, suffix)}) %}
  {% endfor %}
  {% set spec = table_diff._spec_from_ranges(m, rel['ranges']) %}
  {% do table_diff._require_run(m, 'summary', rel['summary'], spec) %}
  {% do table_diff._require_run(m, 'repair', rel['repair'], spec) %}
  {% set s = run_query("select status, rows_source, rows_target,"
      ~ " rows_added + rows_deleted + rows_modified + duplicate_key_rows from " ~ rel['summary']) %}
  {% if s.rows | length != 1 %}
    {{ table_diff._fail(m, 'pair', pair, "a pair whose summary " ~ rel['summary'] ~ " holds one run",
        "Rebuild it: dbt build --select " ~ pair ~ "__ranges+") }}
  {% endif %}
  {% set status = s.rows[0][0] %}
  {% if status != 'complete' %}
    {{ table_diff._fail(m, 'pair', pair, "a pair whose last run is complete (its summary says '" ~ status ~ "')",
        ("max_diff_rows cut the diff short, so the repair would be too: raise max_diff_rows and rebuild"
         if status == 'partial' else "a side was written while the pair ran: rebuild")
        ~ " with dbt build --select " ~ pair ~ "__ranges+, then apply.") }}
  {% endif %}
  {% set directions = run_query("select distinct repair_direction from " ~ rel['repair']).rows %}
  {% set counts = run_query("select repair_action, count(*) from " ~ rel['repair'] ~ " group by repair_action").rows %}
  {% set n = {'insert': 0, 'delete': 0, 'update': 0} %}
  {% for r in counts %}{% do n.update({r[0]: r[1] | int}) %}{% endfor %}
  {% if directions | length == 0 %}
    {% if s.rows[0][3] | int > 0 %}
      {{ table_diff._fail(m, 'repair', rel['repair'], "the repair of the summary's run (" ~ s.rows[0][3] ~ " differing rows)",
          "It is empty: it was built before this run's row diff. Rebuild: dbt build --select " ~ pair ~ "__ranges+") }}
    {% endif %}
    {% do log("table_diff.apply_repair: " ~ pair ~ ": nothing to repair (the sides are equal); nothing written.", info=true) %}
    {{ return(none) }}
  {% endif %}
  {% set sides = table_diff._repair_sides(m, directions[0][0]) %}
  {% set w_side = sides['write'] %}
  {% set w = spec[w_side] %}
  {% set pin = (spec.get('pins') or {}).get(w_side) or {} %}
  {% if pin.get('explicit') %}
    {{ table_diff._fail(m, 'pair', pair, "a pair that read its " ~ w_side ~ " " ~ w ~ " at its current version",
        "The diff read a past version (" ~ w_side ~ "_as_of); a repair writes the table as it is now. Drop the option and rebuild the pair.") }}
  {% endif %}
  {% if w_side in (spec.get('databases') or {}) %}
    {#- A database side (ADR 0047): table_diff never writes a database; the script a DBA runs. -#}
    {% do log("table_diff.apply_repair: " ~ pair ~ ": " ~ n['insert'] ~ " inserts, " ~ n['delete'] ~ " deletes, " ~ n['update']
        ~ " updates into " ~ w ~ ", a table of its database: nothing written. Review and run this script in the database,"
        ~ " then rebuild the pair to confirm (dbt build --select " ~ pair ~ "__ranges+):\n"
        ~ table_diff._repair_database_script(spec, w_side, rel['repair']), info=true) %}
    {{ return(none) }}
  {% endif %}
  {% set now = table_diff.table_version(w) %}
  {% do table_diff._require_unchanged_since_diff(m, pair, w_side, w, pin, now, spec,
      s.rows[0][1 if w_side == 'source' else 2] | int, rel['block_hashes']) %}
  {% set w_cols = table_diff.query_columns('select * from ' ~ w) %}
  {% set summary_line = pair ~ ": " ~ n['insert'] ~ " inserts, " ~ n['delete'] ~ " deletes, " ~ n['update'] ~ " updates into " ~ w_side ~ " " ~ w %}
  {% if now['format'] in ['delta', 'iceberg'] %}
    {% set sql = table_diff._repair_merge_sql(spec, w, rel['repair'], w_cols) %}
  {% elif not rewrite %}
    {{ table_diff._fail(m, 'rewrite', rewrite, "rewrite=true to rewrite " ~ w ~ " (a " ~ (now['format'] or 'relation') ~ " table: no MERGE INTO)",
        "A rewrite replaces the whole table through a staging table and is not atomic: a failure between its two steps leaves the staging table to copy back by hand (docs/decisions/0017-repair.md). Use Delta Lake or Iceberg for a one-commit repair.") }}
  {% else %}
    {% set staging = api.Relation.create(database=rel['repair'].database, schema=rel['repair'].schema,
        identifier=pair ~ '__repair_staging', type='table') %}
    {% set sql = table_diff._repair_rewrite_sql(spec, w, rel['repair'], w_cols, staging) %}
  {% endif %}
  {% if dry_run %}
    {% do log("table_diff.apply_repair (dry run, nothing written): " ~ summary_line ~ ":\n" ~ sql, info=true) %}
    {{ return(none) }}
  {% endif %}
  {% for statement in sql.split(';\n') if statement | trim %}
    {% do run_query(statement) %}
  {% endfor %}
  {% set after = table_diff.table_version(w) %}
  {% do log("table_diff.apply_repair: " ~ summary_line
      ~ ((" (version " ~ now['version'] ~ " -> " ~ after['version'] ~ ", one commit)") if after['version'] is not none else " (rewritten)")
      ~ ". Rebuild the pair to confirm: dbt build --select " ~ pair ~ "__ranges+", info=true) %}
  {{ return(none) }}
{% endmacro %}


{% macro _pair_model_relation(macro_name, pair, suffix) %}
  {#- The built relation of model `<pair>__<suffix>` of this project, or a clear error. -#}
  {% set name = pair ~ '__' ~ suffix %}
  {% for node in graph.nodes.values() if node.resource_type == 'model' and node.name == name %}
    {% set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) %}
    {% if relation is none %}
      {{ table_diff._fail(macro_name, 'pair', pair, "a pair whose model " ~ name ~ " has been built",
          "Build it: dbt build --select " ~ pair ~ "__ranges+") }}
    {% endif %}
    {{ return(relation) }}
  {% endfor %}
  {{ table_diff._fail(macro_name, 'pair', pair, "a pair of this project with a model " ~ name,
      ("Scaffold the repair model: table-diff scaffold pair " ~ pair ~ " ... --repair" if suffix == 'repair'
       else "Check the name: the pair's models are " ~ pair ~ "__ranges ... " ~ pair ~ "__summary.")) }}
{% endmacro %}


{% macro _require_unchanged_since_diff(macro_name, pair, side, relation, pin, now, spec, rows_at_diff, block_hashes) %}
  {#- The written side must be the state the diff read: the pinned version (Delta, Iceberg), else
      no data file newer than the block pass and the same row count after the filter. -#}
  {% set fix = "Rebuild the pair (dbt build --select " ~ pair ~ "__ranges+), then apply the new repair." %}
  {% if now['format'] == 'view' %}
    {{ table_diff._fail(macro_name, 'pair', pair, "a " ~ side ~ " that is a table", relation ~ " is a view: nothing to write. Repair the table it reads.") }}
  {% endif %}
  {% if pin.get('version') is not none %}
    {% if now['version'] != pin['version'] %}
      {{ table_diff._fail(macro_name, 'pair', pair, "a pair whose diff read the current version of " ~ relation,
          "The diff read version " ~ pin['version'] ~ "; the table is now at version " ~ now['version'] ~ ". " ~ fix) }}
    {% endif %}
    {{ return(none) }}
  {% endif %}
  {% set modified = table_diff.file_modified_at(relation) %}
  {% set q = "select count(*), " ~ (("count_if(" ~ modified ~ " > (select max(started_at) from " ~ block_hashes ~ "))") if modified else "0")
      ~ " from " ~ relation ~ " " ~ table_diff._where(spec) %}
  {% set row = run_query(q).rows[0] %}
  {% if row[0] | int != rows_at_diff %}
    {{ table_diff._fail(macro_name, 'pair', pair, "a pair whose diff read " ~ relation ~ " as it is now",
        "The diff counted " ~ rows_at_diff ~ " rows; it now holds " ~ row[0] ~ ". " ~ fix) }}
  {% endif %}
  {% if row[1] | int > 0 %}
    {{ table_diff._fail(macro_name, 'pair', pair, "a pair whose diff read " ~ relation ~ " as it is now",
        row[1] ~ " of its rows are in data files written after the diff's block pass. " ~ fix) }}
  {% endif %}
{% endmacro %}


{% macro _repair_key_match(spec, w_cols, t, s) %}
  {% set parts = [] %}
  {% for c in w_cols if table_diff._find_column(spec['key'], c.name) %}
    {% do parts.append(table_diff._col_ref(c.name, t) ~ ' <=> ' ~ table_diff._col_ref(c.name, s)) %}
  {% endfor %}
  {{ return(parts | join(' and ')) }}
{% endmacro %}


{% macro _repair_update_value(spec, c, t, s) %}
  {#- A compared column takes the repair's value when it is a changed column, else keeps its own. -#}
  {% set col = table_diff._find_column(spec['columns'], c.name) %}
  {{ return("case when array_contains(" ~ s ~ ".changed_columns, " ~ table_diff._sql_string(col['name']) ~ ") then "
      ~ table_diff._col_ref(c.name, s) ~ " else " ~ table_diff._col_ref(c.name, t) ~ " end") }}
{% endmacro %}


{% macro _repair_merge_sql(spec, w, repair, w_cols) %}
  {% set names = [] %}
  {% for c in w_cols %}{% do names.append(table_diff.quote_identifier(c.name)) %}{% endfor %}
  merge into {{ w }} as t
  using {{ repair }} as s
  on {{ table_diff._repair_key_match(spec, w_cols, 't', 's') }} and s.repair_action in ('delete', 'update')
  when matched and s.repair_action = 'delete' then delete
  {%- set updates = [] %}
  {%- for c in w_cols if table_diff._find_column(spec['columns'], c.name) %}
    {%- do updates.append(table_diff._col_ref(c.name, 't') ~ ' = ' ~ table_diff._repair_update_value(spec, c, 't', 's')) %}
  {%- endfor %}
  {%- if updates %}
  when matched and s.repair_action = 'update' then update set {{ updates | join(', ') }}
  {%- endif %}
  when not matched and s.repair_action = 'insert' then insert ({{ names | join(', ') }})
    values ({% for c in w_cols %}{{ ', ' if not loop.first }}{{ table_diff._col_ref(c.name, 's') }}{% endfor %})
{% endmacro %}


{% macro _repair_rewrite_sql(spec, w, repair, w_cols, staging) %}
  {#- A table without MERGE: the repaired table into a staging table, then over the original. -#}
  {% set names = [] %}
  {% for c in w_cols %}{% do names.append(table_diff.quote_identifier(c.name)) %}{% endfor %}
  drop table if exists {{ staging }};
  create table {{ staging }} using parquet as
  select t.* from {{ w }} as t
  left anti join (select * from {{ repair }} where repair_action in ('delete', 'update')) as s
    on {{ table_diff._repair_key_match(spec, w_cols, 't', 's') }}
  union all
  select {% for c in w_cols %}{{ ', ' if not loop.first }}{{ table_diff._repair_update_value(spec, c, 't', 's')
      if table_diff._find_column(spec['columns'], c.name) else table_diff._col_ref(c.name, 't') }} as {{ names[loop.index0] }}{% endfor %}
  from {{ w }} as t
  join (select * from {{ repair }} where repair_action = 'update') as s
    on {{ table_diff._repair_key_match(spec, w_cols, 't', 's') }}
  union all
  select {{ names | join(', ') }} from {{ repair }} where repair_action = 'insert';
  insert overwrite table {{ w }} select {{ names | join(', ') }} from {{ staging }};
  drop table {{ staging }}
{% endmacro %}


{% macro _repair_database_script(spec, w_side, repair) %}
  {#- The repair as SQL its database runs, one statement a row of `repair`, in a transaction:
      deletes, then updates (only the changed columns), then inserts (a duplicate key: its delete,
      then one insert per row). Values are the database's literals (`database_value_literal`). -#}
  {% set db = spec['databases'][w_side] %}
  {% set d = db['dialect'] %}
  {% set kinds = {} %}
  {% for i in db['key'] + db['columns'] %}{% do kinds.update({i['stored'] | lower: i['kind']}) %}{% endfor %}
  {% set family_kind = {'integral': 'integer', 'decimal': 'decimal', 'string': 'text', 'boolean': 'boolean',
                        'date': 'date', 'timestamp': 'timestamp', 'timestamp_ntz': 'timestamp_ntz'} %}
  {% set cols = [] %}
  {% for w_col in adapter.get_columns_in_relation(repair) if w_col.name | lower not in ['repair_action', 'changed_columns', 'run_id', 'repair_direction'] %}
    {% set kind = kinds.get(w_col.name | lower) or family_kind.get(table_diff._type_family(w_col.dtype)) %}
    {% if kind is none %}
      {{ table_diff._fail('apply_repair', 'repair', repair, "columns a script can write (" ~ family_kind.values() | join(', ') ~ ")",
          "Column " ~ w_col.name ~ " is " ~ w_col.dtype ~ ": leave it out of the pair's target (a view in the database) or repair it by hand.") }}
    {% endif %}
    {% do cols.append({'name': w_col.name, 'ident': table_diff.database_ident(d, w_col.name),
        'lit': table_diff.database_value_literal(d, kind, table_diff.quote_identifier(w_col.name))}) %}
  {% endfor %}
  {% set keys = [] %}
  {% for part in db['key'] %}
    {% set ref = table_diff.quote_identifier(part['name']) %}
    {% set ident = table_diff.database_ident(d, part['stored']) %}
    {% do keys.append("if(" ~ ref ~ " is null, " ~ table_diff._sql_string(ident ~ ' is null') ~ ", concat("
        ~ table_diff._sql_string(ident ~ ' = ') ~ ", " ~ table_diff.database_value_literal(d, part['kind'], ref) ~ "))") %}
  {% endfor %}
  {% set where = "concat(' where ', concat_ws(' and ', " ~ keys | join(', ') ~ "), ';')" %}
  {% set sets = [] %}
  {% for out in cols %}
    {% do sets.append("if(array_contains(changed_columns, " ~ table_diff._sql_string(out['name']) ~ "), concat("
        ~ table_diff._sql_string(out['ident'] ~ ' = ') ~ ", " ~ out['lit'] ~ "), null)") %}
  {% endfor %}
  {% set insert = 'insert into ' ~ db['table'] ~ ' (' ~ cols | map(attribute='ident') | join(', ') ~ ') values (' %}
  {% set statements = run_query("select case repair_action"
      ~ " when 'delete' then concat(" ~ table_diff._sql_string('delete from ' ~ db['table']) ~ ", " ~ where ~ ")"
      ~ " when 'update' then concat(" ~ table_diff._sql_string('update ' ~ db['table'] ~ ' set ') ~ ", array_join(array("
      ~ sets | join(', ') ~ "), ', '), " ~ where ~ ")"
      ~ " else concat(" ~ table_diff._sql_string(insert) ~ ", concat_ws(', ', " ~ cols | map(attribute='lit') | join(', ') ~ "), ');') end"
      ~ " from " ~ repair ~ " order by case repair_action when 'delete' then 0 when 'update' then 1 else 2 end").rows %}
  {% set lines = ['begin;'] %}
  {% for r in statements %}{% do lines.append(r[0]) %}{% endfor %}
  {% do lines.append('commit;') %}
  {{ return(lines | join('\n')) }}
{% endmacro %}
