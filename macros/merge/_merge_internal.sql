{#-
  Private helpers of the three-way merge (never dispatched). The merge spec mirrors the two-way
  spec (`_resolve_spec`) with three sides: every key and column dict carries `base_type`,
  `ours_type` and `theirs_type` (none where the side lacks the column), the common comparison
  `type`, the `merged_type` and its normalisation rules, so the shared expression builders
  (`_typed_expr`, `_normalised_expr`, `_key_expr`) work with side = 'base' | 'ours' | 'theirs'.
-#}

{% macro _merge_sides() %}{{ return(['base', 'ours', 'theirs']) }}{% endmacro %}


{% macro _merge_check_options(macro_name, primary_key, columns, exclude_columns, table_filter, normalize,
                              leaf_count, on_schema_conflict) %}
  {#- Parse/compile-time argument checks shared by every public merge macro. -#}
  {% set opts = table_diff._check_options(macro_name, primary_key, columns, exclude_columns, table_filter,
      'hash', none, none, none, none, none, none, normalize) %}
  {% do opts.update({'leaf_count': table_diff._positive_int_or_none(macro_name, 'leaf_count', leaf_count)}) %}
  {% if on_schema_conflict not in ['error', 'report'] %}
    {{ table_diff._fail(macro_name, 'on_schema_conflict', on_schema_conflict, "'error' or 'report'",
        "Use 'error' (the default) to stop the build on a schema conflict, or 'report' to list it in the summary and merge no data.") }}
  {% endif %}
  {% do opts.update({'on_schema_conflict': on_schema_conflict}) %}
  {{ return(opts) }}
{% endmacro %}


{% macro _merge_column_status(b, o, t) %}
  {#- Schema status of one column from its canonical types per side (none = absent). -#}
  {#- Returns [status, merged_type or none, conflict reason or none]. -#}
  {% if b is not none and o is not none and t is not none %}
    {% if o == b and t == b %}{{ return(['unchanged', b, none]) }}
    {% elif t == b %}{{ return(['type_changed_ours', o, none]) }}
    {% elif o == b %}{{ return(['type_changed_theirs', t, none]) }}
    {% elif o == t %}{{ return(['type_changed_both', o, none]) }}
    {% else %}{{ return(['type_conflict', none, 'type changed from ' ~ b ~ ' to ' ~ o ~ ' in ours and to ' ~ t ~ ' in theirs']) }}
    {% endif %}
  {% elif b is not none and o is not none %}
    {% if o == b %}{{ return(['dropped_theirs', none, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'type changed from ' ~ b ~ ' to ' ~ o ~ ' in ours and column dropped in theirs']) }}
  {% elif b is not none and t is not none %}
    {% if t == b %}{{ return(['dropped_ours', none, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'column dropped in ours and type changed from ' ~ b ~ ' to ' ~ t ~ ' in theirs']) }}
  {% elif b is not none %}
    {{ return(['dropped_both', none, none]) }}
  {% elif o is not none and t is not none %}
    {% if o == t %}{{ return(['added_both', o, none]) }}{% endif %}
    {{ return(['type_conflict', none, 'added as ' ~ o ~ ' in ours and as ' ~ t ~ ' in theirs']) }}
  {% elif o is not none %}
    {{ return(['added_ours', o, none]) }}
  {% else %}
    {{ return(['added_theirs', t, none]) }}
  {% endif %}
{% endmacro %}


{% macro _merge_resolve(macro_name, base, ours, theirs, opts) %}
  {#-
    Warehouse checks (execute time): the schema phase. Returns {'schema': [per-column entries in
    table order], 'conflicts': [entries with schema_conflict], 'spec': merge spec}.
  -#}
  {% set rels = {'base': base, 'ours': ours, 'theirs': theirs} %}
  {% set cols = {} %}
  {% for side in table_diff._merge_sides() %}
    {% set c = adapter.get_columns_in_relation(rels[side]) %}
    {% if c | length == 0 %}
      {{ table_diff._fail(macro_name, side, rels[side], "an existing table or view with columns",
          "Build or create " ~ rels[side] ~ " first (dbt build --select +<model>), or fix the ref()/source() passed as " ~ side ~ ".") }}
    {% endif %}
    {% do cols.update({side: c}) %}
  {% endfor %}

  {% set key_names = [] %}
  {% set key = [] %}
  {% for k in opts['key'] %}
    {% set found = {} %}
    {% for side in table_diff._merge_sides() %}
      {% set c = table_diff._find_column(cols[side], k) %}
      {% if c is none %}
        {{ table_diff._fail(macro_name, 'primary_key', k, "a column present in base, ours and theirs",
            "Column '" ~ k ~ "' is missing from " ~ rels[side] ~ " (" ~ side ~ "); fix the name or add the column.") }}
      {% endif %}
      {% do found.update({side: c}) %}
    {% endfor %}
    {% set common = table_diff._common_type(table_diff._common_type(found['base'].dtype, found['ours'].dtype) or 'unsupported', found['theirs'].dtype) %}
    {% if common is none or table_diff._type_family(common) in ['fractional', 'unsupported'] %}
      {{ table_diff._fail(macro_name, 'primary_key', k ~ ' ' ~ found['base'].dtype ~ '/' ~ found['ours'].dtype ~ '/' ~ found['theirs'].dtype,
          "an exact key type shared by base, ours and theirs (integers, decimals, strings, dates, timestamps)",
          "Cast the key to one exact type on every side in a view (floating-point keys do not match reliably).") }}
    {% endif %}
    {% if k | lower in key_names %}
      {{ table_diff._fail(macro_name, 'primary_key', k, "each key column once", "Remove the repeated column.") }}
    {% endif %}
    {% do key_names.append(k | lower) %}
    {% do key.append({'name': found['base'].name, 'type': common, 'merged_type': common,
                      'base_type': found['base'].dtype, 'ours_type': found['ours'].dtype, 'theirs_type': found['theirs'].dtype}) %}
  {% endfor %}

  {#- Every column name of the three sides, in base order then ours' and theirs' additions. -#}
  {% set names = [] %}
  {% set lnames = [] %}
  {% for side in table_diff._merge_sides() %}
    {% for c in cols[side] %}
      {% if c.name | lower not in lnames %}{% do lnames.append(c.name | lower) %}{% do names.append(c.name) %}{% endif %}
    {% endfor %}
  {% endfor %}
  {% for n in opts['columns'] + opts['exclude_columns'] + (opts['normalize'].keys() | list) %}
    {% set arg = 'columns' if n in opts['columns'] else ('exclude_columns' if n in opts['exclude_columns'] else 'normalize') %}
    {% if n | lower not in lnames %}
      {{ table_diff._fail(macro_name, arg, n, "a column of " ~ base ~ ", " ~ ours ~ " or " ~ theirs,
          "Fix the name or remove '" ~ n ~ "' from " ~ arg ~ ".") }}
    {% endif %}
    {% if arg == 'normalize' and n | lower in key_names %}
      {{ table_diff._fail(macro_name, 'normalize', n, "a non-key column", "Keys are matched exactly; remove '" ~ n ~ "' from normalize.") }}
    {% endif %}
  {% endfor %}
  {% set wanted = opts['columns'] | map('lower') | list %}
  {% set excluded = opts['exclude_columns'] | map('lower') | list %}

  {% set schema = [] %}
  {% set conflicts = [] %}
  {% set compared = [] %}
  {% for name in names %}
    {% set lname = name | lower %}
    {% if lname not in key_names and (wanted | length == 0 or lname in wanted) and lname not in excluded %}
      {% set types = {} %}
      {% for side in table_diff._merge_sides() %}
        {% set c = table_diff._find_column(cols[side], name) %}
        {% do types.update({side: c.dtype if c is not none else none}) %}
        {% if c is not none and table_diff._type_family(c.dtype) == 'unsupported' %}
          {{ table_diff._fail(macro_name, 'columns', name ~ ' ' ~ c.dtype ~ ' (' ~ side ~ ')',
              "a supported type (numbers, decimals, strings, booleans, dates, timestamps, binary)",
              "Add '" ~ name ~ "' to exclude_columns, or merge to_json(" ~ name ~ ") from a view.") }}
        {% endif %}
      {% endfor %}
      {% set canon = {} %}
      {% for side in table_diff._merge_sides() %}
        {% do canon.update({side: table_diff._canonical_type(types[side]) if types[side] is not none else none}) %}
      {% endfor %}
      {% set st = table_diff._merge_column_status(canon['base'], canon['ours'], canon['theirs']) %}
      {% set entry = {'column_name': name, 'status': st[0], 'base_type': types['base'], 'ours_type': types['ours'],
                      'theirs_type': types['theirs'], 'merged_type': st[1], 'schema_conflict': st[2] is not none,
                      'reason': st[2]} %}
      {% if st[1] is not none %}
        {#- Values are compared in the common type of the sides that have the column. -#}
        {% set ns = namespace(common=none, ok=true) %}
        {% for side in table_diff._merge_sides() %}
          {% if canon[side] is not none %}
            {% if ns.common is none and ns.ok %}{% set ns.common = canon[side] %}
            {% elif ns.ok %}{% set ns.common = table_diff._common_type(ns.common, canon[side]) %}{% set ns.ok = ns.common is not none %}
            {% endif %}
          {% endif %}
        {% endfor %}
        {% if not ns.ok %}
          {% do entry.update({'status': 'type_conflict', 'merged_type': none, 'schema_conflict': true,
              'reason': 'types ' ~ ([types['base'], types['ours'], types['theirs']] | reject('none') | join(', ')) ~ ' (base, ours, theirs) cannot be compared'}) %}
        {% else %}
          {% set rules = {} %}
          {% for n, r in opts['normalize'].items() %}{% if n | lower == lname %}{% do rules.update(r) %}{% endif %}{% endfor %}
          {% set fam = table_diff._type_family(ns.common) %}
          {% for rule in rules %}
            {% set ok = (rule == 'round' and fam in ['fractional', 'decimal'])
                     or (rule == 'truncate' and fam in ['timestamp', 'timestamp_ntz'])
                     or (rule in ['trim', 'lower'] and fam == 'string') %}
            {% if not ok %}
              {{ table_diff._fail(macro_name, 'normalize', name ~ '.' ~ rule, "round for floats/decimals, truncate for timestamps, trim/lower for strings",
                  "'" ~ name ~ "' is " ~ ns.common ~ "; remove the " ~ rule ~ " rule for it.") }}
            {% endif %}
          {% endfor %}
          {% do compared.append({'name': name, 'type': ns.common, 'merged_type': st[1], 'base_type': types['base'],
                                 'ours_type': types['ours'], 'theirs_type': types['theirs'], 'normalize': rules}) %}
        {% endif %}
      {% endif %}
      {% do schema.append(entry) %}
      {% if entry['schema_conflict'] %}{% do conflicts.append(entry) %}{% endif %}
    {% endif %}
  {% endfor %}

  {% do table_diff._check_table_filter(macro_name, opts['table_filter'], [base, ours, theirs]) %}

  {% set spec = {'base': base | string, 'ours': ours | string, 'theirs': theirs | string, 'key': key,
                 'columns': compared, 'table_filter': opts['table_filter'], 'strategy': 'hash',
                 'leaf_count': opts['leaf_count'], 'on_schema_conflict': opts['on_schema_conflict']} %}
  {{ return({'schema': schema, 'conflicts': conflicts, 'spec': spec}) }}
{% endmacro %}


{% macro _merge_raise_conflicts(macro_name, resolved) %}
  {#- on_schema_conflict = 'error': one message naming the tables, every conflicting column and the fix. -#}
  {% set spec = resolved['spec'] %}
  {% set parts = [] %}
  {% for e in resolved['conflicts'] %}{% do parts.append("'" ~ e['column_name'] ~ "' (" ~ e['reason'] ~ ")") %}{% endfor %}
  {{ exceptions.raise_compiler_error(
      "table_diff." ~ macro_name ~ ": schema conflict between ours " ~ spec['ours'] ~ " and theirs " ~ spec['theirs']
      ~ " (base " ~ spec['base'] ~ ") on column(s) " ~ parts | join('; ') ~ ". No data was merged. "
      ~ "Give the column one type on both sides (cast it in a view), or leave it out with exclude_columns, "
      ~ "or set on_schema_conflict='report' to list the conflict in the merge summary instead of failing.") }}
{% endmacro %}


{% macro _merge_value_expr(col, side, normalised) %}
  {#- A side's value: normalised in the comparison type, or raw in the merged type; NULL when absent. -#}
  {%- if col[side ~ '_type'] is none -%}
    {{ return('cast(null as ' ~ (col['type'] if normalised else col['merged_type']) ~ ')') }}
  {%- endif -%}
  {%- if normalised -%}{{ return(table_diff._normalised_expr(col, side)) }}{%- endif -%}
  {%- set ref = table_diff._col_ref(col['name']) -%}
  {%- if table_diff._canonical_type(col[side ~ '_type']) != table_diff._canonical_type(col['merged_type']) -%}
    {{ return('cast(' ~ ref ~ ' as ' ~ col['merged_type'] ~ ')') }}
  {%- endif -%}
  {{ return(ref) }}
{% endmacro %}


{% macro _merge_leaf_count(spec) %}
  {#- Leaves of the shared hash layout: about 1000 rows per leaf of the largest side, at most 16384. -#}
  {% if spec['leaf_count'] is not none %}{{ return(spec['leaf_count']) }}{% endif %}
  {% set ests = table_diff._estimate_sides([spec['base'], spec['ours'], spec['theirs']], spec) | reject('none') | list %}
  {% set est = ([1] + ests) | max %}
  {{ return([[((est + 999) // 1000) | int, 1] | max, 16384] | min) }}
{% endmacro %}


{% macro _merge_candidates_sql(spec, relations, leaf_count) %}
  {#-
    One query that reads each side twice: per side, rows with their leaf pmod(xxhash64(key), L) and
    128-bit fingerprint, summed per leaf (first read); the leaves where the three signatures are not
    all present and equal; the rows of those leaves (second read, one broadcast join after a union
    of the three sides); then one group by on the key: presence counts per side and each side's
    values (a key stored more than once on a side is set apart, never paired).
  -#}
  {%- set sides = table_diff._merge_sides() -%}
  with
  {% for side in sides %}
  {{ side }}_leafed as (
    select
      r.*,
      pmod(xxhash64('table_diff:merge_leaf', __td_k), {{ leaf_count }}) as __td_leaf,
      {%- set inputs = [] %}
      {%- for k in spec['key'] %}{% do inputs.append(table_diff._typed_expr(k, side)) %}{% endfor %}
      {%- for c in spec['columns'] %}{% do inputs.append(table_diff._merge_value_expr(c, side, true)) %}{% endfor %}
      {{ table_diff.row_fingerprint(inputs, 'a') }} as __td_h1,
      {{ table_diff.row_fingerprint(inputs, 'b') }} as __td_h2
    from (
      select *, {{ table_diff._key_expr(spec, side) }} as __td_k
      from {{ relations[side] }}
      {{ table_diff._where(spec) }}
    ) as r
  ),
  {{ side }}_blocks as (
    select
      cast(__td_leaf as int) as leaf_id,
      count(*) as n_rows,
      sum(shiftright(__td_h1, 32)) as h1_hi,
      sum(__td_h1 & 4294967295) as h1_lo,
      sum(shiftright(__td_h2, 32)) as h2_hi,
      sum(__td_h2 & 4294967295) as h2_lo
    from {{ side }}_leafed
    group by __td_leaf
  ),
  {% endfor %}
  td_diff_leaves as (
    {#- A leaf is unchanged only when all three sides have it with identical signatures. -#}
    select leaf_id from (
      {% for side in sides %}
      select leaf_id, n_rows, h1_hi, h1_lo, h2_hi, h2_lo from {{ side }}_blocks
      {{ 'union all' if not loop.last }}
      {% endfor %}
    ) as s
    group by leaf_id
    having count(*) != 3
      or count(distinct named_struct('n', n_rows, 'a', h1_hi, 'b', h1_lo, 'c', h2_hi, 'd', h2_lo)) > 1
  ),
  td_fetched as (
    {#-
      The rows of changed leaves, all sides in one union filtered by ONE inner join (a semi join
      would be pushed into each union branch, repeating the signature subquery per side).
    -#}
    select /*+ broadcast(d) */ u.*
    from (
      {% for side in sides %}
      select
        {{ loop.index0 }} as __td_side,
        __td_k,
        __td_leaf,
        {%- for k in spec['key'] %}
        {{ table_diff._typed_expr(k, side) }} as __td_key{{ loop.index }},
        {%- endfor %}
        named_struct('p', true
          {%- for c in spec['columns'] %},
          'v{{ loop.index }}', {{ table_diff._merge_value_expr(c, side, true) }},
          'r{{ loop.index }}', {{ table_diff._merge_value_expr(c, side, false) }}
          {%- endfor %}
        ) as __td_vals
      from {{ side }}_leafed
      {{ 'union all' if not loop.last }}
      {% endfor %}
    ) as u
    inner join td_diff_leaves as d on u.__td_leaf = d.leaf_id
  ),
  td_grouped as (
    {#- Null-safe "full outer join" of the three sides as one group by on the key: no cross product. -#}
    select
      {%- for k in spec['key'] %}
      first(__td_key{{ loop.index }}) as __td_key{{ loop.index }},
      {%- endfor %}
      {%- for side in sides %}
      count_if(__td_side = {{ loop.index0 }}) as __td_n{{ side[0] }},
      first(if(__td_side = {{ loop.index0 }}, __td_vals, null), true) as {{ side[0] }},
      {%- endfor %}
      count(*) as __td_n
    from td_fetched
    group by __td_k
  ),
  td_joined as (
    select
      *,
      __td_nb > 1 or __td_no > 1 or __td_nt > 1 as __td_dup,
      {%- for pair in [('b', 'o', 'ours_changed'), ('b', 't', 'theirs_changed'), ('o', 't', 'ours_theirs_differ')] %}
      case
        when __td_n{{ pair[0] }} = 0 and __td_n{{ pair[1] }} = 0 then cast(array() as array<string>)
        when __td_n{{ pair[0] }} = 0 or __td_n{{ pair[1] }} = 0 then cast(array(
          {%- for c in spec['columns'] %}{{ table_diff._sql_string(c['name']) }}{{ ', ' if not loop.last }}{% endfor -%}
        ) as array<string>)
        else filter(array(
          {%- for c in spec['columns'] %}
          if({{ pair[0] }}.v{{ loop.index }} <=> {{ pair[1] }}.v{{ loop.index }}, null, {{ table_diff._sql_string(c['name']) }}),
          {%- endfor %}
          cast(null as string)
        ), x -> x is not null)
      end as {{ pair[2] }}
      {%- if not loop.last %},{% endif %}
      {%- endfor %}
    from td_grouped
  )
  select
    {%- for k in spec['key'] %}
    __td_key{{ loop.index }} as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    {%- for side in sides %}
    not __td_dup and __td_n{{ side[0] }} > 0 as td_in_{{ side }},
    {%- endfor %}
    __td_dup as td_duplicate_key,
    {%- for a in ['ours_changed', 'theirs_changed', 'ours_theirs_differ'] %}
    if(__td_dup, cast(array() as array<string>), {{ a }}) as {{ a }}
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
    {%- for c in spec['columns'] %}
    {%- set i = loop.index %}
    {%- for side in sides %},
    if(__td_dup, null, {{ side[0] }}.r{{ i }}) as {{ table_diff.quote_identifier(side ~ '__' ~ c['name']) }}
    {%- endfor %}
    {%- endfor %}
  from td_joined
{% endmacro %}


{% macro _merge_candidates_empty(spec) %}
  {#- The candidates' shape with no rows and no scan (schema conflict reported, on_schema_conflict='report'). -#}
  select
    {%- for k in spec['key'] %}
    cast(null as {{ k['type'] }}) as {{ table_diff.quote_identifier(k['name']) }},
    {%- endfor %}
    cast(null as boolean) as td_in_base, cast(null as boolean) as td_in_ours, cast(null as boolean) as td_in_theirs,
    cast(null as boolean) as td_duplicate_key,
    cast(null as array<string>) as ours_changed, cast(null as array<string>) as theirs_changed,
    cast(null as array<string>) as ours_theirs_differ
    {%- for c in spec['columns'] %},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('base__' ~ c['name']) }},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('ours__' ~ c['name']) }},
    cast(null as {{ c['merged_type'] }}) as {{ table_diff.quote_identifier('theirs__' ~ c['name']) }}
    {%- endfor %}
  where false
{% endmacro %}
