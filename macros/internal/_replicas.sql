{#- One source, several replicas, one pass (ADR 0028). A replica set is a pair whose target is a
    list: `key_ranges` resolves the pair spec of (source, replica) for each replica with the pair's
    own resolver and refuses, before any scan, a replica whose key or compared columns differ from
    the first's; the shared spec then names every replica's side (`target_1`, ...) so that the
    N-side code (`_plan_sides`, `_side_blocks_ctes`, `_whole_signature_sql`) reads the source once
    and each replica once. Per replica, `replica_ranges` and `replica_block_hashes` hand the
    unchanged pair models the replica's own pair spec and rows. -#}

{% macro _as_relation_list(target) %}
  {#- `target` as a list: itself when it is a list of relations, else [target]. -#}
  {{ return(target if table_diff._is_relation_list(target) else [target]) }}
{% endmacro %}


{% macro _is_relation_list(target) %}
  {#- A list (not one relation: a relation is tested first, it refuses the other tests). -#}
  {% if target is none or target is string or target.identifier is defined %}{{ return(false) }}{% endif %}
  {{ return(target is sequence and target is not mapping) }}
{% endmacro %}


{% macro _replica_targets(macro_name, target, arg='target') %}
  {#- [[name, relation], ...] of a list of replicas (names: the relations' identifiers, lower
      case), or none for a single target. Checked without the warehouse. -#}
  {% if not table_diff._is_relation_list(target) %}
    {{ return(none) }}
  {% endif %}
  {% if target | length == 0 %}
    {{ table_diff._fail(macro_name, arg, '[]', "a relation, or a list of at least one replica",
        "Pass " ~ arg ~ "=source('replica', 'orders'), or " ~ arg ~ "=[source('r1', 'orders'), source('r2', 'orders')].") }}
  {% endif %}
  {% set out, seen = [], [] %}
  {% for relation in target %}
    {% do table_diff._require_relation(macro_name, arg, relation) %}
    {% set name = relation.identifier | lower %}
    {#- At parse time ref() and source() name the calling model: names are checked when it runs. -#}
    {% if execute and name in seen %}
      {{ table_diff._fail(macro_name, arg, relation, "replicas with different table names (" ~ seen | join(', ') ~ " so far)",
          "Two replicas are named '" ~ name ~ "': each replica's models are named after its table (NAME__" ~ name
          ~ "__summary). Diff a view of one of them under another name, or scaffold a separate pair for it.") }}
    {% endif %}
    {% do seen.append(name) %}
    {% do out.append([name, relation]) %}
  {% endfor %}
  {{ return(out) }}
{% endmacro %}


{% macro _check_replica_options(macro_name, opts, arg='target') %}
  {#- Options a replica set cannot take: one target version, the changes track, a repair. -#}
  {% if opts.get('track') %}
    {{ table_diff._fail(macro_name, 'track', 'true', "track without a list of targets",
        "The changes track keeps one target's file signatures (ADR 0019); scaffold a tracked pair per replica instead.") }}
  {% endif %}
  {% if opts.get('target_as_of') is not none %}
    {{ table_diff._fail(macro_name, arg ~ '_as_of', opts.get('target_as_of'), "no " ~ arg ~ "_as_of with a list of " ~ arg,
        "A version belongs to one table; scaffold a separate pair for the replica read at a version.") }}
  {% endif %}
{% endmacro %}


{% macro _resolve_replicas(macro_name, source, replicas, opts, source_arg='source', target_arg='target') %}
  {#- The shared spec of a replica set: the first replica's pair spec with `target` naming the
      replicas, the key's and columns' `target_<i>_type`, every side's pin and projection, and
      `replicas` [{name, side, target, spec}] (each replica's own pair spec). Warehouse checks
      only, no scan (`_resolve_spec` per replica); a replica whose key or compared columns
      (names, comparison types) differ from the first's is refused. -#}
  {% set specs = [] %}
  {% for name, relation in replicas %}
    {% do specs.append(table_diff._resolve_spec(macro_name, source, relation, opts, source_arg, target_arg ~ ' (replica ' ~ name ~ ')')) %}
    {% if specs[-1].get('databases') %}
      {{ table_diff._fail(macro_name, target_arg, relation, "replicas Spark reads (tables or views), not a database table",
          "A database side is compared as a pair of its own (ADR 0047): list " ~ relation ~ " in its own key_ranges.") }}
    {% endif %}
  {% endfor %}
  {% set first_spec = specs[0] %}
  {% for spec in specs[1:] %}
    {% set name = replicas[loop.index][0] %}
    {% for part in ['key', 'columns'] %}
      {% set want = first_spec[part] | map(attribute='name') | map('lower') | list %}
      {% set got = spec[part] | map(attribute='name') | map('lower') | list %}
      {% set ns = namespace(column=none) %}
      {% for n in (want + got) | unique %}
        {% if ns.column is none and (n not in want or n not in got) %}{% set ns.column = n %}{% endif %}
      {% endfor %}
      {% for a in first_spec[part] %}
        {% set b = spec[part][got.index(a['name'] | lower)] if a['name'] | lower in got else none %}
        {% if ns.column is none and b is not none and table_diff._canonical_type(a['type']) != table_diff._canonical_type(b['type']) %}
          {% set ns.column = a['name'] ~ ' (' ~ a['type'] ~ ' for ' ~ replicas[0][0] ~ ', ' ~ b['type'] ~ ' for ' ~ name ~ ')' %}
        {% endif %}
      {% endfor %}
      {% if ns.column is not none %}
        {{ table_diff._fail(macro_name, target_arg, spec['target'], "replicas with the key and compared columns of the first replica "
            ~ first_spec['target'] ~ " (" ~ part ~ " " ~ want | join(', ') ~ ")",
            "Replica " ~ name ~ " differs in " ~ part ~ " at column " ~ ns.column ~ ". Scaffold a separate pair for "
            ~ name ~ (" (table-diff scaffold pair NAME_" ~ name ~ " --source ... --target ...)." if target_arg == 'target'
                      else ", or give it a no_drift test of its own.")) }}
      {% endif %}
    {% endfor %}
  {% endfor %}
  {% set shared = first_spec.copy() %}
  {% set pins, projections, entries = {'source': first_spec['pins']['source']}, {'source': first_spec['projections'].get('source')}, [] %}
  {% set key, columns = [], [] %}
  {% for part, items in [('key', key), ('columns', columns)] %}
    {% for item in first_spec[part] %}
      {% set merged = item.copy() %}
      {% do merged.pop('target_type', none) %}
      {% for spec in specs %}
        {% set names = spec[part] | map(attribute='name') | map('lower') | list %}
        {% do merged.update({'target_' ~ loop.index ~ '_type': spec[part][names.index(item['name'] | lower)]['target_type']}) %}
      {% endfor %}
      {% do items.append(merged) %}
    {% endfor %}
  {% endfor %}
  {% for spec in specs %}
    {% set side = 'target_' ~ loop.index %}
    {% do pins.update({side: spec['pins']['target']}) %}
    {% do projections.update({side: spec['projections'].get('target')}) %}
    {% do entries.append({'name': replicas[loop.index0][0], 'side': side, 'target': spec['target'], 'spec': spec}) %}
  {% endfor %}
  {% do shared.update({'target': specs | map(attribute='target') | join(', '), 'key': key, 'columns': columns,
      'pins': pins, 'projections': projections, 'replicas': entries}) %}
  {{ return(shared) }}
{% endmacro %}


{% macro _replica_sides(macro_name, spec, source, target) %}
  {#- [[side, relation], ...] a shared model of a replica set reads: the source and every replica,
      each the relation its ranges model resolved (and pinned). -#}
  {% do table_diff._require_pair_side(macro_name, 'source', source, spec) %}
  {% set replicas = spec.get('replicas') or [] %}
  {% set given = table_diff._as_relation_list(target) %}
  {% if given | map('string') | list != replicas | map(attribute='target') | list %}
    {{ table_diff._fail(macro_name, 'target', given | map('string') | join(', '), "the replicas " ~ replicas | map(attribute='target') | join(', ')
        ~ " (as recorded by " ~ spec.get('ranges', 'its ranges model') ~ ")",
        "Pass the same list of targets, in the same order, to every shared model of the replica set, or rebuild it from its ranges model: dbt build --select <pair>__ranges+.") }}
  {% endif %}
  {% set sides = [['source', source]] %}
  {% for r in replicas %}{% do sides.append([r['side'], given[loop.index0]]) %}{% endfor %}
  {{ return(sides) }}
{% endmacro %}


{% macro _replica_of(macro_name, arg, relation, spec, name) %}
  {#- The entry of replica `name` in the shared spec of a replica set. -#}
  {% set found = (spec.get('replicas') or []) | selectattr('name', 'equalto', name | lower) | list %}
  {% if found | length == 0 %}
    {{ table_diff._fail(macro_name, arg, relation, "the ranges of a replica set with a replica named '" ~ name ~ "'",
        "Its replicas are: " ~ ((spec.get('replicas') or []) | map(attribute='name') | join(', ') or 'none (a pair)')
        ~ ". Pass ref('<pair>__ranges') of the set and one of these names (scaffold the set again after changing its targets).") }}
  {% endif %}
  {{ return(found[0]) }}
{% endmacro %}
