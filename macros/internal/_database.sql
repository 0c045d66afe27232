{#-
  A database side (ADR 0047): a side that is a Spark table over the JDBC data source (Provider
  jdbc) of a database named in var `table_diff_databases`. Its signatures are computed by the
  database itself: each pass sends one SQL text of the dialect (macros/dialect/postgres.sql)
  through Spark's JDBC source (`query`), so only signatures, and the rows of mismatched leaves,
  cross. Both engines then fingerprint a row from the same canonical text (`_portable_hashes`).
  The spec keeps the connection's name, never its credentials.
-#}

{% macro _portable_prefix() %}{{ return('table_diff:p2|') }}{% endmacro %}


{% macro _portable_counted(kind) %}
  {#- Whether a value of `kind` is written `<octet length>:<text>` (NULL `-`) in the canonical row
      text: the kinds a string holds on the side Spark reads (a uuid too), whose text can hold any
      character. Every other kind is printed from a typed value, without `;` and never empty, so
      it is written `<text>;` (NULL `;`): shorter on both engines, and still one reading per row
      text, since each position's kind is known. -#}
  {{ return(kind in ['text', 'char', 'uuid']) }}
{% endmacro %}


{% macro _database_connection(macro_name, arg, relation) %}
  {#- {name, dialect, url, user, password_env} of the entry of var table_diff_databases that
      serves `relation`: the one whose `spark_schemas` lists its schema, or the only entry when
      it lists none. -#}
  {% set conns = var('table_diff_databases', none) or {} %}
  {% set example = "vars: {table_diff_databases: {shop: {url: 'jdbc:postgresql://host:5432/shop', user: 'reader', password_env: 'SHOP_PG_PASSWORD', spark_schemas: ['" ~ relation.schema ~ "']}}}" %}
  {% if conns is not mapping or conns | length == 0 %}
    {{ table_diff._fail(macro_name, arg, relation, "a table Spark can read, or a JDBC table of a database named in var table_diff_databases",
        relation ~ " is a JDBC table: table_diff computes its signatures inside the database and needs the connection there. Add to dbt_project.yml " ~ example) }}
  {% endif %}
  {% set found = [] %}
  {% for name, entry in conns.items() %}
    {% set schemas = (entry.get('spark_schemas') or []) if entry is mapping else [] %}
    {% if (relation.schema or '') | lower in schemas | map('lower') | list or (not schemas and conns | length == 1) %}
      {% do found.append(name) %}
    {% endif %}
  {% endfor %}
  {% if found | length != 1 %}
    {{ table_diff._fail(macro_name, arg, relation, "exactly one entry of var table_diff_databases whose spark_schemas lists " ~ relation.schema,
        (found | length ~ " entries (" ~ found | join(', ') ~ ")") ~ " serve it: list the Spark schema of the JDBC table under one entry's spark_schemas, as in " ~ example) }}
  {% endif %}
  {% set name = found[0] %}
  {% set entry = conns[name] %}
  {% set url = entry.get('url') or '' %}
  {% if url is not string or not url.startswith('jdbc:postgresql:') %}
    {{ table_diff._fail(macro_name, 'table_diff_databases', name ~ '.url', "a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)",
        "Set url of table_diff_databases." ~ name ~ "; PostgreSQL is the database a side can be today.") }}
  {% endif %}
  {% set env = entry.get('password_env') %}
  {% if env is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', env) %}
    {{ table_diff._fail(macro_name, 'table_diff_databases', name ~ '.password_env', "the name of an environment variable holding the password",
        "Set password_env: SHOP_PG_PASSWORD (the password itself never goes into dbt's vars, logs or the spec: Spark reads it from the environment).") }}
  {% endif %}
  {{ return({'name': name, 'dialect': 'postgres', 'url': url, 'user': entry.get('user') or '', 'password_env': env}) }}
{% endmacro %}


{% macro _database_view(connection, sql, fetch_rows=false) %}
  {#- A temporary view over the result of `sql`, which the database runs (Spark's JDBC `query`).
      The password reaches Spark as `${env:...}`, substituted by Spark's parser: dbt logs the
      statement before that. Created once per invocation and text. -#}
  {% set conn = connection if connection is mapping else table_diff._database_connection('table_diff', 'database', connection) %}
  {% set view = 'td_db_' ~ local_md5(conn['name'] ~ sql)[:24] %}
  {% set memo = table_diff._run_cache() %}
  {% if ('db_view ' ~ view) not in memo %}
    {% do run_query("create or replace temporary view " ~ view ~ " using jdbc options (url " ~ table_diff._sql_string(conn['url'])
        ~ ", driver 'org.postgresql.Driver', user " ~ table_diff._sql_string(conn['user'])
        ~ ", password '${env:" ~ conn['password_env'] ~ "}'" ~ (", fetchsize '10000'" if fetch_rows else "")
        ~ ", query " ~ table_diff._sql_string(sql) ~ ")") %}
    {% do memo.update({'db_view ' ~ view: true}) %}
  {% endif %}
  {{ return(view) }}
{% endmacro %}


{% macro _database_sides(macro_name, spec, relations, args) %}
  {#- {side: database side} for the sides of a pair that are JDBC tables: {'connection' (its
      name in var table_diff_databases), 'dialect', 'table', 'key' and 'columns' (items in spec
      order: name, stored name, kind and the kind's parameters), 'rows' (the database's estimate)}.
      Every check runs here, before any scan: the options a database side takes, the encoding,
      and every column's pair of types (`_portable_kind`). -#}
  {% set out = {} %}
  {% for side in ['source', 'target'] if (spec['pins'].get(side) or {}).get('format') == 'jdbc' %}
    {% set relation = relations[side] %}
    {% set conn = table_diff._database_connection(macro_name, args[side], relation) %}
    {% set table = spec['pins'][side].get('table') %}
    {% if not table %}
      {{ table_diff._fail(macro_name, args[side], relation, "a JDBC table defined with option dbtable",
          relation ~ " reads a query: create a view in the database and point dbtable at it.") }}
    {% endif %}
    {% set catalog = {} %}
    {% set facts = {} %}
    {% for row in run_query('select * from ' ~ table_diff._database_view(conn, table_diff.database_catalog_sql(conn['dialect'], table))).rows %}
      {% if row[0] == 'column' %}{% do catalog.update({row[1] | lower: {'name': row[1], 'type': row[2], 'base': row[3]}}) %}
      {% else %}{% do facts.update({row[0]: row[2]}) %}{% endif %}
    {% endfor %}
    {% if not catalog %}
      {{ table_diff._fail(macro_name, args[side], relation, "a table of the database " ~ conn['name'] ~ " (dbtable " ~ table ~ ")",
          "PostgreSQL does not see " ~ table ~ " with user " ~ conn['user'] ~ ": check dbtable and the user's privileges.") }}
    {% endif %}
    {% if facts.get('encoding') != 'UTF8' %}
      {{ table_diff._fail(macro_name, args[side], relation, "a database in the UTF8 encoding",
          "Database " ~ conn['name'] ~ " is " ~ facts.get('encoding') ~ ": strings are fingerprinted as UTF-8 bytes on both engines; compare a UTF8 copy.") }}
    {% endif %}
    {% set projection = {} %}
    {% for stored, name in (spec.get('projections') or {}).get(side) or [] %}{% do projection.update({name | lower: stored}) %}{% endfor %}
    {% set items = {'key': [], 'columns': []} %}
    {% for group in ['key', 'columns'] %}
      {% for c in spec[group] %}
        {% set stored = projection.get(c['name'] | lower, c['name']) %}
        {% set pg = catalog.get(stored | lower) %}
        {% set item = table_diff._portable_kind(macro_name, c, pg, relation, spec[('source' if side == 'target' else 'target')]) %}
        {% do item.update({'name': c['name'], 'stored': pg['name']}) %}
        {% if group == 'columns' %}
          {% do table_diff._database_rules(macro_name, c, item, relation) %}
          {#- A uuid is one value in any case: its database text is lower case, the other side's
              string is compared lowered, in the fingerprint and in the row diff alike. -#}
          {% if item['kind'] == 'uuid' %}{% do c.update({'normalize': dict(c.get('normalize') or {}, lower=true)}) %}{% endif %}
        {% endif %}
        {% do items[group].append(item) %}
      {% endfor %}
    {% endfor %}
    {% do out.update({side: {'connection': conn['name'], 'dialect': conn['dialect'], 'table': table,
        'key': items['key'], 'columns': items['columns'], 'rows': (facts.get('rows') | int) if facts.get('rows') is not none else -1}}) %}
  {% endfor %}
  {% if out %}{% do table_diff._database_options(macro_name, spec, out) %}{% endif %}
  {{ return(out) }}
{% endmacro %}


{% macro _database_options(macro_name, spec, databases) %}
  {#- What a pair with a database side cannot take yet, refused before any scan. -#}
  {% set side = databases.keys() | list | first %}
  {% set rel = spec[side] %}
  {% if databases | length > 1 %}
    {{ table_diff._fail(macro_name, 'target', spec['target'], "one side that Spark reads (a table or view) beside the database side",
        "Both sides are database tables; the key sample is cut from the side Spark reads. Compare one of them against a lakehouse copy.") }}
  {% endif %}
  {% set refused = [['table_filter', spec['table_filter'], "a filter is Spark SQL: filter in a view in the database and point dbtable at it"],
                    ['track', spec.get('track') or none, "a database has no data files to track; leave track out"]] %}
  {% if spec['strategy'] == 'hash' %}
    {#- Leaves by hash need Spark's xxhash64 in the database: range leaves instead (no_drift's
        default is hash). Leaves decide which rows are compared together, never the answer. -#}
    {% do spec.update({'strategy': 'range'}) %}
    {% do log("table_diff." ~ macro_name ~ ": " ~ spec['source'] ~ " vs " ~ spec['target'] ~ ": leaves by key range (a database side computes no Spark hash).", info=false) %}
  {% endif %}
  {% for name, value, fix in refused if value %}
    {{ table_diff._fail(macro_name, name, value, "not set on a pair with a database side (" ~ rel ~ ")", fix ~ " (ADR 0047).") }}
  {% endfor %}
{% endmacro %}


{% macro _portable_kind(macro_name, col, pg, relation, other) %}
  {#- {'kind': how both engines compare the column} from its common Spark type and its PostgreSQL
      type `pg` ({name, type, base}), or the failure naming both types and the fix. -#}
  {% if pg is none %}
    {{ table_diff._fail(macro_name, 'columns', col['name'], "a column of " ~ relation ~ " in its database",
        "PostgreSQL's catalog has no column " ~ col['name'] ~ ": refresh the JDBC table's definition in Spark.") }}
  {% endif %}
  {% set fam = table_diff._type_family(col['type']) %}
  {% set base = pg['base'] %}
  {% set kinds = {
      'integral': {'int2': 'integer', 'int4': 'integer', 'int8': 'integer'},
      'decimal': {'int2': 'decimal', 'int4': 'decimal', 'int8': 'decimal', 'numeric': 'decimal'},
      'string': {'text': 'text', 'varchar': 'text', 'bpchar': 'char', 'uuid': 'uuid', 'name': 'text'},
      'boolean': {'bool': 'boolean'}, 'date': {'date': 'date'},
      'timestamp': {'timestamptz': 'timestamp'}, 'timestamp_ntz': {'timestamp': 'timestamp_ntz'}} %}
  {% set kind = (kinds.get(fam) or {}).get(base) %}
  {% if kind is none %}
    {% if fam == 'timestamp' and base == 'timestamp' %}
      {% set fix = "PostgreSQL's timestamp has no time zone and Spark's timestamp is an instant: compare timestamptz, or read it as timestamp_ntz (JDBC option preferTimestampNTZ 'true') against a timestamp_ntz column" %}
    {% elif fam == 'fractional' or base in ['float4', 'float8'] %}
      {% set fix = "floating-point values print differently on the two engines: cast both to a decimal of fixed scale (numeric(p,s) in a database view, decimal(p,s) in Spark)" %}
    {% else %}
      {% set fix = "no exact comparison between them; cast one side to the other's type in a view (the types a database side compares: docs/semantics.md)" %}
    {% endif %}
    {{ table_diff._fail(macro_name, 'columns', col['name'] ~ ' (' ~ col['type'] ~ ' in ' ~ other ~ ', ' ~ pg['type'] ~ ' in ' ~ relation ~ ')',
        "types a database side compares exactly", fix ~ " (ADR 0047).") }}
  {% endif %}
  {% set item = {'kind': kind} %}
  {% if kind == 'decimal' %}{% do item.update({'scale': table_diff._decimal_parts(col['type'])[1]}) %}{% endif %}
  {% if kind == 'char' %}
    {% set n = modules.re.search('\\((\\d+)\\)', pg['type']) %}
    {% do item.update({'length': (n.group(1) | int) if n else 1}) %}
  {% endif %}
  {{ return(item) }}
{% endmacro %}


{% macro _database_rules(macro_name, col, item, relation) %}
  {#- A compared column's normalisation rules on a database side: round and trim mean the same on
      both engines; lower, truncate and tolerances do not yet (case folding and time zones differ). -#}
  {% set rules = col.get('normalize') or {} %}
  {% for r in rules if r not in ['round', 'trim'] and not (r == 'lower' and item['kind'] == 'uuid') %}
    {{ table_diff._fail(macro_name, 'normalize', col['name'] ~ ': ' ~ r, "round or trim on a pair with a database side (" ~ relation ~ ")",
        "Apply it in a view on each side, or leave it out (ADR 0047).") }}
  {% endfor %}
  {% if col.get('tolerance') %}
    {{ table_diff._fail(macro_name, 'tolerance', col['name'], "no tolerance on a pair with a database side (" ~ relation ~ ")",
        "Round the column in a view on each side instead (ADR 0047).") }}
  {% endif %}
  {% if 'round' in rules %}
    {% if item['kind'] != 'decimal' %}
      {{ table_diff._fail(macro_name, 'normalize', col['name'] ~ ': round', "round on a decimal column of a pair with a database side", "Remove the rule (ADR 0047).") }}
    {% endif %}
    {% do item.update({'round': [rules['round'] | int, item['scale']] | min}) %}
  {% endif %}
  {% if rules.get('trim') %}{% do item.update({'trim': true}) %}{% endif %}
{% endmacro %}


{% macro _portable_value_sql(kind, e) %}
  {#- Spark's canonical text of a typed value `e`: what the dialect's value text (`_postgres_value_text`) writes for the same value. -#}
  {%- if kind == 'date' -%}{{ return('cast(unix_date(' ~ e ~ ') as string)') }}
  {%- elif kind == 'timestamp' -%}{{ return('cast(unix_micros(' ~ e ~ ') as string)') }}
  {%- elif kind == 'timestamp_ntz' -%}{{ return("cast(timestampdiff(MICROSECOND, timestamp_ntz'1970-01-01 00:00:00', " ~ e ~ ") as string)") }}
  {%- endif -%}
  {{ return('cast(' ~ e ~ ' as string)') }}
{% endmacro %}


{% macro _portable_hashes(spec, side, alias=none) %}
  {#- [h1, h2]: the two signed 64-bit halves of md5 over the canonical row text (ADR 0047), in
      Spark, for the side of a pair with a database side that Spark reads. -#}
  {%- set db = (spec['databases'].values() | list)[0] -%}
  {%- set parts = ["'" ~ table_diff._portable_prefix() ~ "'"] -%}
  {%- set inputs = table_diff._fingerprint_inputs(spec, side, alias) -%}
  {%- for i in db['key'] + db['columns'] -%}
    {%- set t = table_diff._portable_value_sql(i['kind'], inputs[loop.index0]) -%}
    {%- if table_diff._portable_counted(i['kind']) -%}
      {%- do parts.append("coalesce(concat(cast(octet_length(" ~ t ~ ") as string), ':', " ~ t ~ "), '-')") -%}
    {%- else -%}
      {%- do parts.append("concat(coalesce(" ~ t ~ ", ''), ';')") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set m = 'md5(concat(' ~ parts | join(', ') ~ '))' -%}
  {{ return(['cast(conv(substr(' ~ m ~ ', 1, 16), 16, -10) as bigint)', 'cast(conv(substr(' ~ m ~ ', 17, 16), 16, -10) as bigint)']) }}
{% endmacro %}


{% macro _row_hashes(spec, side, alias=none) %}
  {#- [h1, h2] of a row of `side`: the row fingerprint, or on a pair with a database side the
      portable one (a database side's own rows carry theirs as `__td_h1`, `__td_h2`). -#}
  {%- if spec.get('databases') -%}
    {%- if side in spec['databases'] -%}{{ return([(alias ~ '.' if alias else '') ~ '__td_h1', (alias ~ '.' if alias else '') ~ '__td_h2']) }}{%- endif -%}
    {{ return(table_diff._portable_hashes(spec, side, alias)) }}
  {%- endif -%}
  {%- set inputs = table_diff._fingerprint_inputs(spec, side, alias) -%}
  {{ return([table_diff.row_fingerprint(inputs, 'a'), table_diff.row_fingerprint(inputs, 'b')]) }}
{% endmacro %}


{% macro _database_bounds(spec, db, ranges_from) %}
  {#- The leaf bounds of `ranges_from` (a ranges relation or FROM item) as literals of the
      database, in leaf order: one Spark query, once per invocation and run. -#}
  {% set memo = table_diff._run_cache() %}
  {% set memo_key = 'db_bounds ' ~ ranges_from ~ ' ' ~ spec.get('run_id') %}
  {% if memo_key in memo and spec.get('run_id') %}{{ return(memo[memo_key]) }}{% endif %}
  {% if db['key'] | length == 1 %}
    {% set lit = table_diff.database_bound_literal(db['dialect'], db['key'][0]['kind'], 'b') %}
  {% else %}
    {% set parts = [] %}
    {% for part in db['key'] %}
      {% do parts.append("if(b.k" ~ loop.index ~ " is null, 'false, " ~ table_diff.database_null_literal(db['dialect'], part['kind']) ~ "', concat('true, ', "
          ~ table_diff.database_bound_literal(db['dialect'], part['kind'], 'b.k' ~ loop.index) ~ "))") %}
    {% endfor %}
    {% set lit = "concat('row(', " ~ parts | join(", ', ', ") ~ ", ')')" %}
  {% endif %}
  {% set text = run_query("select coalesce(array_join(transform(array_sort(collect_list(named_struct('id', leaf_id, 'lit', " ~ lit
      ~ "))), x -> x.lit), '\\n'), '') from (select leaf_id, lower_bound as b from " ~ ranges_from ~ " where leaf_id > 0) as td_b").rows[0][0] %}
  {% set bounds = text.split('\n') if text else [] %}
  {{ return(table_diff._remember(memo, memo_key if spec.get('run_id') else none, bounds)) }}
{% endmacro %}


{% macro _database_connection_of(spec, side) %}
  {#- The connection of a pair's database side, by the name its spec keeps. -#}
  {% set name = spec['databases'][side]['connection'] %}
  {% set entry = (var('table_diff_databases', none) or {}).get(name) %}
  {% if entry is not mapping %}
    {{ table_diff._fail('table_diff', 'table_diff_databases', name, "the connection the pair was built with",
        "Var table_diff_databases no longer names " ~ name ~ ": restore it, or rebuild the pair from its ranges.") }}
  {% endif %}
  {{ return({'name': name, 'dialect': 'postgres', 'url': entry.get('url'), 'user': entry.get('user') or '', 'password_env': entry.get('password_env')}) }}
{% endmacro %}


{% macro _database_blocks_ctes(spec, side, ranges_from, leaves=none) %}
  {#- A database side's `<side>_blocks` (per-leaf signatures its database computed over the same
      leaf bounds) and, with `leaves` (the leaf ids whose rows the row diff fetches; [] for every
      row), `<side>_leafed`: those rows as the database sent them, with their leaf, fingerprint
      halves and key. -#}
  {%- set db = spec['databases'][side] -%}
  {%- set conn = table_diff._database_connection_of(spec, side) -%}
  {%- set bounds = table_diff._database_bounds(spec, db, ranges_from) -%}
  {{ side }}_blocks as (
    select '{{ side }}' as side, cast(leaf_id as int) as leaf_id, n_rows, n_keys, n_null_key_rows, h1_hi, h1_lo, h2_hi, h2_lo
    from {{ table_diff._database_signatures(spec, side, bounds, distinct_keys=spec.get('check_duplicate_keys')) }}
  )
  {%- if leaves is not none %},
  {{ side }}_leafed as (
    select r.*, {{ table_diff._key_expr(spec, side, 'r') }} as __td_k
    from {{ table_diff._database_view(conn, table_diff.database_rows_sql(db, bounds, leaves or none), true) }} as r
  )
  {%- endif %}
{%- endmacro %}


{% macro _database_leaves_changed(spec, side, outputs) %}
  {#- Whether the rows the row diff fetched from a database side may differ from those the leaf
      pass signed: the database signs again the leaves whose rows were fetched (only their rows
      are fingerprinted; one row a leaf crosses) and any leaf whose count or sums moved from the
      leaf pass's is a change. Equal, the fetch read the rows the leaf pass signed, so the result
      is the diff as of that pass, whatever was written elsewhere since: a live table is flagged
      only when a write lands in the leaves the result depends on. With every leaf fetched, the
      whole-table signature against the sum of the leaves.
      `outputs`: a pair's {block_hashes, block_split, ranges}, or no_drift's {signed: a FROM item
      of the side's leaf signatures (leaf_id, n_rows, h1_hi, h1_lo, h2_hi, h2_lo) of the fetched
      leaves, leaves: their ids (a comma list), ranges, every: whether every leaf was fetched}. -#}
  {% set db = spec['databases'][side] %}
  {% if 'block_split' in outputs %}
    {% set row = run_query("select coalesce(array_join(collect_list(cast(l.leaf_id as string)), ','), ''), count(*) = max(t.n) from "
        ~ "(select explode(sequence(leaf_lo, leaf_hi)) as leaf_id from " ~ outputs['block_split'] ~ " where selected) as l "
        ~ "cross join (select count(*) as n from " ~ outputs['ranges'] ~ ") as t").rows[0] %}
    {% set leaves, every = row[0], row[1] %}
    {% set signed = "(select * from " ~ outputs['block_hashes'] ~ " where side = " ~ table_diff._sql_string(side) ~ ")" %}
  {% else %}
    {% set leaves, every, signed = outputs['leaves'], outputs['every'], outputs['signed'] %}
  {% endif %}
  {% if every %}
    {% set sums = "named_struct('n', {0}n_rows), 'a', {0}h1_hi), 'b', {0}h1_lo), 'c', {0}h2_hi), 'd', {0}h2_lo))" %}
    {% set view = table_diff._database_signatures(spec, side) %}
    {{ return(not run_query("select (select " ~ sums.format('(') ~ " from " ~ view ~ ") <=> (select " ~ sums.format('sum(')
        ~ " from " ~ signed ~ " as s)").rows[0][0]) }}
  {% endif %}
  {% set bounds = table_diff._database_bounds(spec, db, outputs['ranges']) %}
  {% set view = table_diff._database_signatures(spec, side, bounds, leaves.split(',') | map('int') | list) %}
  {% set row = "named_struct('n', {0}.n_rows, 'a', {0}.h1_hi, 'b', {0}.h1_lo, 'c', {0}.h2_hi, 'd', {0}.h2_lo)" %}
  {% set moved = run_query("select count(*) from " ~ view ~ " as n full outer join (select * from " ~ signed
      ~ " as s where leaf_id in (" ~ leaves ~ ")) as b on n.leaf_id = b.leaf_id where not (" ~ row.format('n') ~ " <=> " ~ row.format('b') ~ ")").rows[0][0] %}
  {{ return(moved > 0) }}
{% endmacro %}


{% macro _database_signatures(spec, side, bounds=none, leaves=none, sub_bounds=none, distinct_keys=false) %}
  {#- A temporary view over a database side's signatures (`database_signature_sql`): per leaf of
      `bounds` (its literals; none: one row for the whole table), of `leaves` only, per part of
      `sub_bounds`. -#}
  {{ return(table_diff._database_view(table_diff._database_connection_of(spec, side),
      table_diff.database_signature_sql(spec['databases'][side], bounds or [], bounds is not none, distinct_keys, leaves, sub_bounds))) }}
{% endmacro %}
