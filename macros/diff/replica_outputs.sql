{#-
  table_diff.replica_outputs: a replica set's summary or row diff (ADR 0028): each replica's
  table of that model (its pair's, built from the shared signatures), one after the other, with
  the replica's name in a first column `target_name`. Every input must carry the set's run id
  (ADR 0011): a replica whose models failed or were not rebuilt fails this model with its name.
-#}
{% macro replica_outputs(ranges, outputs) %}
  {% do table_diff._require_relation('replica_outputs', 'ranges', ranges) %}
  {% if outputs is not mapping or outputs | length == 0 %}
    {{ table_diff._fail('replica_outputs', 'outputs', outputs, "a mapping of replica name to that replica's model",
        "Write it as outputs={'orders_eu': ref('orders_check__orders_eu__summary'), ...}.") }}
  {% endif %}
  {% for name, relation in outputs.items() %}
    {% do table_diff._require_relation('replica_outputs', 'outputs.' ~ name, relation) %}
  {% endfor %}
  {{ return(adapter.dispatch('replica_outputs', 'table_diff')(ranges, outputs)) }}
{% endmacro %}


{% macro default__replica_outputs(ranges, outputs) %}
  {% if not execute %}
    {{ return("select '' as target_name") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('replica_outputs', ranges) %}
  {% set names = (spec.get('replicas') or []) | map(attribute='name') | list %}
  {% set given = outputs.keys() | map('lower') | list %}
  {% if given | sort != names | sort %}
    {{ table_diff._fail('replica_outputs', 'outputs', given | join(', '), "one model per replica of the set: " ~ names | join(', '),
        "Scaffold the set again (table-diff scaffold pair NAME --source ... --target ... --target ... --force).") }}
  {% endif %}
  {% set by_name = {} %}
  {% for name, relation in outputs.items() %}{% do by_name.update({name | lower: relation}) %}{% endfor %}
  {% for name in names %}
    {% do table_diff._require_run('replica_outputs', 'outputs.' ~ name, by_name[name], spec) %}
  {% endfor %}
  {% for name in names %}
  {{ 'union all' if not loop.first }}
  select {{ table_diff._sql_string(name) }} as target_name, * from {{ by_name[name] }}
  {% endfor %}
{% endmacro %}
