{#-
  The thresholds of no_drift and pair_matches (`max_added`, `max_modified: '0.1%'`, ...): checked
  before any scan, compared with a run's counts, and written into the test's log line.
-#}

{#- The kinds of change no_drift limits, by argument name. -#}
{% macro _threshold_kinds() %}
  {{ return({'max_added': 'added', 'max_deleted': 'deleted', 'max_modified': 'modified',
             'max_duplicate_key_rows': 'duplicate_key'}) }}
{% endmacro %}


{% macro _check_thresholds(macro_name, thresholds) %}
  {#- {kind: {'count': n} or {'share': percent}} from {max_added: 100, max_modified: '0.1%', ...};
      an error naming the argument for anything else (before any scan). -#}
  {% set kinds = table_diff._threshold_kinds() %}
  {% if thresholds is none %}{{ return({}) }}{% endif %}
  {% if thresholds is not mapping %}
    {{ table_diff._fail(macro_name, 'thresholds', thresholds, "a mapping of " ~ (kinds.keys() | join(', ')) ~ " to limits",
        "E.g. thresholds={'max_added': 100, 'max_modified': '0.1%'}.") }}
  {% endif %}
  {% set limits = {} %}
  {% for name, value in thresholds.items() %}
    {% if name not in kinds %}
      {{ table_diff._fail(macro_name, 'argument', name, "one of " ~ (kinds.keys() | join(', ')), "Fix the name.") }}
    {% endif %}
    {% set share = modules.re.match('^ *([0-9]+([.][0-9]*)?|[.][0-9]+) *% *$', value) if value is string else none %}
    {% if value is none %}
    {% elif value is number and value is not boolean and value >= 0 and value == (value | int) %}
      {% do limits.update({kinds[name]: {'count': value | int}}) %}
    {% elif share and (share.group(1) | float) <= 100 %}
      {% do limits.update({kinds[name]: {'share': share.group(1) | float}}) %}
    {% else %}
      {{ table_diff._fail(macro_name, name, value,
          "a whole number of rows >= 0 (e.g. 100) or a share of the model's rows from '0%' to '100%' (e.g. '0.1%')",
          "Unset means 0: no row of that kind may differ.") }}
    {% endif %}
  {% endfor %}
  {{ return(limits) }}
{% endmacro %}


{% macro _over_thresholds(limits, counts, model_rows) %}
  {#- {kind: 'added: 150 > max_added 100 (by 50)'} for each kind whose count is over its limit (a
      share is of the model's rows, after table_filter); empty without limits. -#}
  {% set over = {} %}
  {% if not limits %}{{ return(over) }}{% endif %}
  {% for name, kind in table_diff._threshold_kinds().items() %}
    {% set limit = limits.get(kind, {'count': 0}) %}
    {% set allowed = limit['count'] if 'count' in limit else limit['share'] / 100.0 * model_rows %}
    {% if counts[kind] > allowed %}
      {% do over.update({kind: kind ~ ": " ~ counts[kind] ~ " > " ~ name ~ " "
          ~ (limit['count'] if 'count' in limit else (limit['share'] ~ "% of " ~ model_rows ~ " rows = " ~ allowed))
          ~ " (by " ~ ((counts[kind] - allowed) if 'count' in limit else ((counts[kind] - allowed) | round(1))) ~ ")"}) %}
    {% endif %}
  {% endfor %}
  {{ return(over) }}
{% endmacro %}


{% macro _limits_text(limits) %}
  {% set parts = [] %}
  {% for name, kind in table_diff._threshold_kinds().items() %}
    {% set limit = limits.get(kind, {'count': 0}) %}
    {% do parts.append(name ~ " " ~ (limit['count'] if 'count' in limit else (limit['share'] ~ "%"))) %}
  {% endfor %}
  {{ return(parts | join(', ')) }}
{% endmacro %}
