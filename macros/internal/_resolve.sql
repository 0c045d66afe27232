{#-
  The one resolver of a diff's sides (ADR 0014): a pair is two sides (source, target), a merge
  three (base, ours, theirs). It reads each side's columns from the catalog (no scan), checks the
  key, the column options and the normalisation rules once for all of them, then the table filter
  against every side, and returns the resolved key and column items. The callers (`_resolve_spec`,
  `_merge_resolve`) add only what is theirs: the pair's keys_only rule, the merge's schema status.
-#}

{% macro _resolve_sides(macro_name, relations, opts, partial_columns=false, with_columns=true, pin=false, as_of=none, renames=none) %}
  {#-
    relations: [[side, relation, argument name], ...] in order (the first side's column order
    leads). Returns {'key': [key items], 'columns': [column items], 'key_names': [lower-case key
    names], 'columns_of': {side: catalog columns}}. Items carry `name`, the common comparison
    `type` and `<side>_type` for every side (none where the side lacks the column); column items
    also `normalize` (their rules).
    partial_columns false (a pair): a compared column must exist on every side, and the columns
    are the first side's. true (a merge): a column may be missing from some sides, the columns
    are the union in side order, and a column whose types have no common type gets `type` none
    (the caller decides). with_columns false (keys_only): no column item, no column check.
    pin true: each side's version is resolved here, once (`_pin_side`), returned as 'pins'
    {side: pin}; `as_of` {side: version number or timestamp text} reads a side at that version, and
    its columns are that version's.
    renames {side: {stored name: name in the diff}} (a pair's column_map, on its target): that
    side is read through a projection that renames its columns, checked here (each stored name a
    column of the side, each new name a column of the first side, no two columns under one name),
    returned as 'projections' {side: [[stored name, name in the diff], ...]} for `_side_from`;
    from then on the side's columns carry the first side's names (key, options, filter included).
  -#}
  {% set sides, rels, args = [], {}, {} %}
  {% for side, relation, arg in relations %}
    {% do sides.append(side) %}{% do rels.update({side: relation}) %}{% do args.update({side: arg}) %}
  {% endfor %}
  {% set names_all = [] %}
  {% for side in sides %}{% do names_all.append(rels[side] | string) %}{% endfor %}
  {% set all_label = ('both ' ~ names_all | join(' and ')) if sides | length == 2
      else (names_all[:-1] | join(', ') ~ ' and ' ~ names_all[-1]) %}
  {% set any_label = names_all[:-1] | join(', ') ~ (' and ' if sides | length == 2 else ' or ') ~ names_all[-1] %}

  {% set columns_of, pins, projections = {}, {}, {} %}
  {% for side in sides %}
    {% set found_cols = adapter.get_columns_in_relation(rels[side]) %}
    {% if found_cols | length == 0 %}
      {{ table_diff._fail(macro_name, args[side], rels[side], "an existing table or view with columns",
          "Build or create " ~ rels[side] ~ " first (dbt build --select +<model>), or fix the ref()/source() passed as " ~ args[side] ~ ".") }}
    {% endif %}
    {% if pin %}
      {% set p = table_diff._pin_side(macro_name, args[side], rels[side], (as_of or {}).get(side)) %}
      {% do pins.update({side: p}) %}
      {% if p['explicit'] %}
        {% set found_cols = table_diff.query_columns('select * from ' ~ rels[side] ~ ' ' ~ table_diff.as_of_clause(p)) %}
      {% endif %}
    {% endif %}
    {#- A nested column's type as `typeof` writes it: the catalog's `describe` shortens a struct of
        more than 25 fields, and its field names are the tree `nested_value` is built from. -#}
    {% set nested = [] %}
    {% for c in found_cols if table_diff._type_family(c.dtype) == 'nested' %}{% do nested.append(c.name) %}{% endfor %}
    {% if nested %}
      {% set p = pins.get(side) %}
      {% set exact = table_diff.exact_column_types(rels[side] ~ ((' ' ~ table_diff.as_of_clause(p)) if p and p['explicit'] else ''), nested) %}
      {% set typed = [] %}
      {% for c in found_cols %}
        {% set tree = table_diff._parse_type(exact[c.name]) if c.name in exact else none %}
        {#- As quoted SQL when understood; as `typeof` wrote it otherwise (refused below). -#}
        {% do typed.append(api.Column.create(c.name, table_diff._type_ddl(tree) if tree is not none else exact[c.name]) if c.name in exact else c) %}
      {% endfor %}
      {% set found_cols = typed %}
    {% endif %}
    {% set rename = (renames or {}).get(side) %}
    {% if rename %}
      {% set r = table_diff._renamed_columns(macro_name, rels[side], found_cols, rename) %}
      {% set found_cols = r['columns'] %}
      {% do projections.update({side: r['projection']}) %}
    {% endif %}
    {% do columns_of.update({side: found_cols}) %}
  {% endfor %}
  {% for side in projections %}
    {% for stored, name in projections[side] %}
      {% if stored != name and table_diff._find_column(columns_of[sides[0]], name) is none %}
        {{ table_diff._fail(macro_name, 'column_map', stored ~ ': ' ~ name, "a column of " ~ rels[sides[0]] ~ " for each entry",
            "Column '" ~ name ~ "' is missing from " ~ rels[sides[0]] ~ "; the entry reads " ~ rels[side] ~ "." ~ stored
            ~ " as it. Fix the source column's name, or remove the entry.") }}
      {% endif %}
    {% endfor %}
  {% endfor %}

  {% set key_names = [] %}
  {% set key = [] %}
  {% for k in opts['key'] %}
    {% set found = {} %}
    {% for side in sides %}
      {% set c = table_diff._find_column(columns_of[side], k) %}
      {% if c is none %}
        {{ table_diff._fail(macro_name, 'primary_key', k, "a column present in " ~ all_label,
            "Column '" ~ k ~ "' is missing from " ~ rels[side] ~ "; fix the name or add the column.") }}
      {% endif %}
      {% do found.update({side: c}) %}
    {% endfor %}
    {#- The exact-key-type rule first: a map, array or struct key has no common type even when all
        sides agree, and "cast one side" would be the wrong advice. -#}
    {% for side in sides %}
      {% set dtype = found[side].dtype %}
      {% set fam = table_diff._type_family(dtype) %}
      {% if fam in ['fractional', 'unsupported', 'nested'] %}
        {% set lt = table_diff._canonical_type(dtype) %}
        {% if fam == 'fractional' %}
          {% set fix = "Floating-point keys do not match reliably; cast the key to decimal or string in a view." %}
        {% elif lt.startswith('struct') %}
          {% set fix = "Compare the struct's fields as separate key columns (select " ~ k ~ ".field as " ~ k ~ "_field ... from a view), or to_json(" ~ k ~ ") as the key." %}
        {% elif lt.startswith('map') or lt.startswith('array') or lt == 'variant' %}
          {% set fix = "Use to_json(" ~ k ~ ") as the key column of a view over each side (a " ~ lt.split('<')[0] ~ " key cannot be ordered or matched directly)." %}
        {% else %}
          {% set fix = "Cast the key to an exact type (integer, decimal, string, date, timestamp) in a view." %}
        {% endif %}
        {{ table_diff._fail(macro_name, 'primary_key', k ~ ' ' ~ dtype, "an exact key type (integers, decimals, strings, dates, timestamps)", fix) }}
      {% endif %}
    {% endfor %}
    {% set common = table_diff._common_type_of(sides, found) %}
    {% if common is none %}
      {{ table_diff._fail(macro_name, 'primary_key', k, "key types that can be compared",
          "'" ~ k ~ "' is " ~ table_diff._types_in(sides, found, rels) ~ "; cast one side in a view so both have the same type.") }}
    {% endif %}
    {% if k | lower in key_names %}
      {{ table_diff._fail(macro_name, 'primary_key', k, "each key column once", "Remove the repeated column.") }}
    {% endif %}
    {% do key_names.append(k | lower) %}
    {% set item = {'name': found[sides[0]].name, 'type': common} %}
    {% for side in sides %}{% do item.update({side ~ '_type': found[side].dtype}) %}{% endfor %}
    {% do key.append(item) %}
  {% endfor %}

  {#- Every name an option gives must be a column: of every side (a pair's columns and normalize),
      or of at least one (exclude_columns, and any option of a merge). -#}
  {% set tolerance = opts.get('tolerance') or {} %}
  {% for n in opts['columns'] + opts['exclude_columns'] + (opts['normalize'].keys() | list) + (tolerance.keys() | list) %}
    {% set arg = 'columns' if n in opts['columns'] else ('exclude_columns' if n in opts['exclude_columns']
        else ('normalize' if n in opts['normalize'] else 'tolerance')) %}
    {% set missing = [] %}
    {% for side in sides %}{% if table_diff._find_column(columns_of[side], n) is none %}{% do missing.append(side) %}{% endif %}{% endfor %}
    {% if missing | length == sides | length or (missing and not partial_columns and arg != 'exclude_columns') %}
      {{ table_diff._fail(macro_name, arg, n, "a column of " ~ (any_label if partial_columns else names_all | join(' and ')),
          "Column '" ~ n ~ "' is missing from " ~ rels[missing[0]] ~ "; fix the name or remove it from " ~ arg ~ ".") }}
    {% endif %}
    {% if arg in ['normalize', 'tolerance'] and n | lower in key_names %}
      {{ table_diff._fail(macro_name, arg, n, "a non-key column", "Keys are matched exactly; remove '" ~ n ~ "' from " ~ arg ~ ".") }}
    {% endif %}
  {% endfor %}

  {#- The columns, in the first side's order (then, for a merge, the other sides' additions). -#}
  {% set names = [] %}
  {% for side in (sides if partial_columns else sides[:1]) %}
    {% for c in columns_of[side] %}
      {% if c.name | lower not in names | map('lower') | list %}{% do names.append(c.name) %}{% endif %}
    {% endfor %}
  {% endfor %}
  {% set wanted = opts['columns'] | map('lower') | list %}
  {% set excluded = opts['exclude_columns'] | map('lower') | list %}
  {% set columns = [] %}
  {% for name in names if with_columns %}
    {% set lname = name | lower %}
    {% if lname not in key_names and (wanted | length == 0 or lname in wanted) and lname not in excluded %}
      {% set found = {} %}
      {% for side in sides %}
        {% set c = table_diff._find_column(columns_of[side], name) %}
        {% if c is none and not partial_columns %}
          {{ table_diff._fail(macro_name, 'columns', name, "columns present on every side",
              "'" ~ name ~ "' exists in " ~ rels[sides[0]] ~ " but not in " ~ rels[side] ~ "; add it to exclude_columns or add it to " ~ rels[side] ~ ".") }}
        {% endif %}
        {% if c is not none %}{% do found.update({side: c}) %}{% endif %}
      {% endfor %}
      {% set present = sides | select('in', found) | list %}
      {% set dtypes = [] %}
      {% for side in present %}{% do dtypes.append(found[side].dtype) %}{% endfor %}
      {% for side in present %}
        {% set fam = table_diff._type_family(found[side].dtype) %}
        {% if fam == 'unsupported' or (fam == 'nested' and table_diff._nested_tree(found[side].dtype) is none) %}
          {{ table_diff._fail(macro_name, 'columns', name ~ ' ' ~ dtypes | join('/'),
              "a supported type (numbers, decimals, strings, booleans, dates, timestamps, binary, and arrays, maps, structs and variants of them)"
              ~ (", with struct field names free of ':', ',', '<', '>' and '`' (Spark's type string leaves them unquoted)" if fam == 'nested' else ''),
              "Add '" ~ name ~ "' to exclude_columns, or compare a view that "
              ~ ("renames the struct's fields (named_struct(...)) or casts the value to a supported type." if fam == 'nested' else "casts it to a supported type.")) }}
        {% endif %}
      {% endfor %}
      {% set common = table_diff._common_type_of(present, found) %}
      {% if common is none and not partial_columns %}
        {{ table_diff._fail(macro_name, 'columns', name, "types that can be compared",
            "'" ~ name ~ "' is " ~ table_diff._types_in(present, found, rels) ~ "; cast one side in a view, or add it to exclude_columns.") }}
      {% endif %}
      {% set rules = {} %}
      {% for n, r in opts['normalize'].items() %}{% if n | lower == lname %}{% do rules.update(r) %}{% endif %}{% endfor %}
      {% if common is not none %}
        {% set fam = table_diff._type_family(common) %}
        {% for rule in rules %}
          {% set ok = (rule == 'round' and fam in ['fractional', 'decimal'])
                   or (rule == 'truncate' and fam in ['timestamp', 'timestamp_ntz'])
                   or (rule in ['trim', 'lower'] and fam == 'string') %}
          {% if not ok %}
            {{ table_diff._fail(macro_name, 'normalize', name ~ '.' ~ rule, "round for floats/decimals, truncate for timestamps, trim/lower for strings",
                "'" ~ name ~ "' is " ~ common ~ "; remove the " ~ rule ~ " rule for it.") }}
          {% endif %}
        {% endfor %}
      {% endif %}
      {% set tol = {} %}
      {% for n, r in tolerance.items() %}{% if n | lower == lname %}{% do tol.update(r) %}{% endif %}{% endfor %}
      {% if tol and table_diff._type_family(common or dtypes[0]) == 'nested' %}
        {{ table_diff._fail(macro_name, 'tolerance', name, "a tolerance on a flat column (numbers, timestamps)",
            "'" ~ name ~ "' is " ~ (common or dtypes[0]) ~ ": nested values are compared exactly, leaf by leaf (ADR 0041). Remove its tolerance, or compare a flattened view.") }}
      {% endif %}
      {% if tol and common is not none %}
        {% do table_diff._check_tolerance_type(macro_name, name, tol, common) %}
      {% endif %}
      {% set item = {'name': name, 'type': common, 'normalize': rules, 'tolerance': tol} %}
      {% for side in sides %}{% do item.update({side ~ '_type': found[side].dtype if side in found else none}) %}{% endfor %}
      {% do columns.append(item) %}
    {% endif %}
  {% endfor %}

  {#- A tolerance on a column that is not compared would be silently unused. -#}
  {% set compared = columns | map(attribute='name') | map('lower') | list %}
  {% for n in tolerance if n | lower not in compared and n | lower not in key_names %}
    {{ table_diff._fail(macro_name, 'tolerance', n, "a compared column",
        "'" ~ n ~ "' is left out by columns / exclude_columns (or keys_only); compare it, or remove its tolerance.") }}
  {% endfor %}

  {#- Last of the warehouse checks, still before any scan: the filter against each side. -#}
  {% set filtered, from_items = [], {} %}
  {% for side in sides %}
    {% do filtered.append(rels[side]) %}
    {% if side in projections %}
      {% do from_items.update({rels[side] | string: table_diff._projected_from(rels[side], pins.get(side), projections[side])}) %}
    {% endif %}
  {% endfor %}
  {% do table_diff._check_table_filter(macro_name, opts['table_filter'], filtered, from_items) %}
  {{ return({'key': key, 'columns': columns, 'key_names': key_names, 'columns_of': columns_of, 'pins': pins,
             'projections': projections}) }}
{% endmacro %}


{% macro _renamed_columns(macro_name, relation, found_cols, rename) %}
  {#- A side's catalog columns under a column_map: {'columns': [{name, dtype}], 'projection':
      [[stored name, name in the diff], ...]} in the side's column order. -#}
  {% set by_lower = {} %}
  {% for stored, name in rename.items() %}
    {% if table_diff._find_column(found_cols, stored) is none %}
      {{ table_diff._fail(macro_name, 'column_map', stored ~ ': ' ~ name, "a column of " ~ relation ~ " as each entry's key",
          "Column '" ~ stored ~ "' is missing from " ~ relation ~ "; entries are written 'target_column': 'source_column'. Fix the name or remove the entry.") }}
    {% endif %}
    {% do by_lower.update({stored | lower: name}) %}
  {% endfor %}
  {% set columns, projection, taken = [], [], {} %}
  {% for c in found_cols %}
    {% set name = by_lower.get(c.name | lower, c.name) %}
    {% if name | lower in taken %}
      {{ table_diff._fail(macro_name, 'column_map', c.name ~ ': ' ~ name, "one column of " ~ relation ~ " per name after renaming",
          relation ~ " would read both " ~ taken[name | lower] ~ " and " ~ c.name ~ " as '" ~ name ~ "'; also map "
          ~ (c.name if c.name | lower not in by_lower else taken[name | lower]) ~ " to another name (an entry '"
          ~ (c.name if c.name | lower not in by_lower else taken[name | lower]) ~ "': '" ~ name ~ "_other'), or compare a view without it.") }}
    {% endif %}
    {% do taken.update({name | lower: c.name}) %}
    {% do columns.append({'name': name, 'dtype': c.dtype}) %}
    {% do projection.append([c.name, name]) %}
  {% endfor %}
  {{ return({'columns': columns, 'projection': projection}) }}
{% endmacro %}


{% macro _common_type_of(sides, found) %}
  {#- The common comparison type of one column over `sides` (catalog columns in `found`), or none. -#}
  {% set ns = namespace(common=none, ok=true) %}
  {% for side in sides %}
    {% if loop.first %}{% set ns.common = table_diff._canonical_type(found[side].dtype) %}
    {% elif ns.ok %}{% set ns.common = table_diff._common_type(ns.common, found[side].dtype) %}{% set ns.ok = ns.common is not none %}
    {% endif %}
  {% endfor %}
  {{ return(ns.common if ns.ok else none) }}
{% endmacro %}


{% macro _types_in(sides, found, rels) %}
  {#- "bigint in a and string in b" (for the messages of incomparable types). -#}
  {% set parts = [] %}
  {% for side in sides %}{% do parts.append(found[side].dtype ~ ' in ' ~ rels[side]) %}{% endfor %}
  {{ return(parts[:-1] | join(', ') ~ ' and ' ~ parts[-1]) }}
{% endmacro %}


{% macro _pin_side(macro_name, arg, relation, as_of=none) %}
  {#-
    The version one run reads of a side: {'format', 'version', 'timestamp', 'explicit'}. Without
    `as_of`: the side's current version (Delta, Iceberg), resolved now, or none (plain files, a
    view: unpinned, and the run checks them for writes instead, `_changed_sides`). With `as_of` (a
    version number, or a timestamp as text): that version, checked to exist before any scan.
  -#}
  {% set tv = table_diff.table_version(relation) %}
  {% if as_of is none %}
    {% set p = {'format': tv['format'], 'version': tv['version'], 'timestamp': none, 'explicit': false} %}
    {#- A JDBC table: the database's table it reads (a database side, ADR 0047). -#}
    {% if tv.get('table') %}{% do p.update({'table': tv['table']}) %}{% endif %}
    {{ return(p) }}
  {% endif %}
  {% set as_of_arg = arg ~ '_as_of' %}
  {% if tv['format'] not in ['delta', 'iceberg'] %}
    {{ table_diff._fail(macro_name, as_of_arg, as_of, "a side that is a Delta Lake or Iceberg table (they keep versions)",
        relation ~ " is " ~ (("a " ~ tv['format']) if tv['format'] else "a relation") ~ " with no versions to read; remove "
        ~ as_of_arg ~ ", or compare against a copy saved when that version was current.") }}
  {% endif %}
  {% if as_of is boolean or not ((as_of is number and (as_of | int) == as_of and as_of >= 0) or (as_of is string and as_of | trim != '')) %}
    {{ table_diff._fail(macro_name, as_of_arg, as_of, "a version number (Delta: a commit version; Iceberg: a snapshot id) or a timestamp as text",
        "Write it as " ~ as_of_arg ~ "=12 or " ~ as_of_arg ~ "='2026-11-24 00:00:00'.") }}
  {% endif %}
  {% set p = {'format': tv['format'], 'version': (as_of | int) if as_of is number else none,
              'timestamp': (as_of | trim) if as_of is string else none, 'explicit': true} %}
  {% set reason = table_diff.explain_error('select 1 from ' ~ relation ~ ' ' ~ table_diff.as_of_clause(p)) %}
  {% if reason %}
    {{ table_diff._fail(macro_name, as_of_arg, as_of, "a version of " ~ relation ~ " that can still be read",
        "Spark says: " ~ reason ~ ". DESCRIBE HISTORY " ~ relation ~ " (Delta) or its `snapshots` metadata table (Iceberg) lists the versions kept.") }}
  {% endif %}
  {{ return(p) }}
{% endmacro %}
