{#-
  Private helpers of the merge's output models (merge_rows, merge_conflicts, merged_rows,
  merge_violations, merge_summary; ADR 0027). Every output reads the candidates through ONE
  classification (`_merge_classified`): Dolt's cell-wise semantics as three CASE expressions over
  the presence flags and the changed-column arrays that merge_candidates computed after
  normalisation. Per key (O / T = ours_changed / theirs_changed, D = ours_theirs_differ):

  base / ours / theirs  merge_status (conflict)    merged row
  r / r / r             unchanged                  r (not listed in the merge model)
  r / r / t             theirs_only                t
  r / o / r             ours_only                  o
  r / x / x             convergent                 x (ours)
  r / - / -             convergent                 absent
  r / o / t, O&T agree  cell_merged                base + ours' O + theirs' T
  r / o / t, O&T&D      conflict (update_update)   ours
  r / o / -  (O)        conflict (update_delete)   ours
  r / r / -             theirs_only (delete)       absent
  r / - / t  (T)        conflict (delete_update)   absent (ours)
  r / - / r             ours_only (delete)         absent
  - / o / -, - / - / t  ours_only / theirs_only    o / t
  - / o / t             convergent / insert_insert o (ours)

  A key stored more than once on a side (td_duplicate_key) gets merge_status 'duplicate_key': set
  apart, never classified; its ours rows are copied as they are and merge_violations reports them.
-#}

{#- A key resolved by conflict resolution policies (the Python classification only, ADR 0040) is
    'resolved': its conflict_type kept, its merged row the cell-wise merge with the chosen values. -#}
{% macro _merge_statuses() %}
  {{ return(['unchanged', 'ours_only', 'theirs_only', 'convergent', 'cell_merged', 'conflict']) }}
{% endmacro %}


{% macro _merge_conflict_types() %}
  {{ return(['update_update', 'update_delete', 'delete_update', 'insert_insert']) }}
{% endmacro %}


{% macro _merge_require_columns(macro_name, arg, relation, needed, built_by, fix) %}
  {#- Execute time: `relation` has the `needed` columns (case-insensitive), else the standard error
      naming the argument, what lacks and the fix. Returns the relation's columns. -#}
  {% set cols = adapter.get_columns_in_relation(relation) %}
  {% set names = cols | map(attribute='name') | map('lower') | list %}
  {% set missing = needed | reject('in', names) | list %}
  {% if missing %}
    {{ table_diff._fail(macro_name, arg, relation, "a table built by " ~ built_by ~ ", with columns " ~ needed | join(', '),
        ("It does not exist or was not built yet. " if names | length == 0 else "It lacks " ~ missing | join(', ') ~ ". ") ~ fix) }}
  {% endif %}
  {{ return(cols) }}
{% endmacro %}


{% macro _merge_candidate_layout(macro_name, candidates) %}
  {#- Execute time: {'key': [key columns, before td_in_base], 'columns': [merged columns, the names
      after the ours__ prefix], 'types': {column: data type}} of a table built by
      table_diff.merge_candidates; anything else fails naming `candidates` and the fix. -#}
  {% set fix = "Pass the merge's candidates model, ref('<merge>__merge_candidates'), built by table_diff.merge_candidates (dbt build --select +<merge>__merge_candidates)." %}
  {% set cols = table_diff._merge_require_columns(macro_name, 'candidates', candidates,
      ['td_in_base', 'td_in_ours', 'td_in_theirs', 'td_duplicate_key', 'ours_changed', 'theirs_changed', 'ours_theirs_differ'],
      'table_diff.merge_candidates', fix) %}
  {% set names = cols | map(attribute='name') | list %}
  {% set key = names[:(names | map('lower') | list).index('td_in_base')] %}
  {% if key | length == 0 %}
    {{ table_diff._fail(macro_name, 'candidates', candidates, "key columns before td_in_base, as table_diff.merge_candidates writes them",
        "It has none. " ~ fix) }}
  {% endif %}
  {% set types = {} %}
  {% for c in cols %}{% do types.update({c.name: c.dtype}) %}{% endfor %}
  {% set columns = [] %}
  {% for n in names if n[:6] | lower == 'ours__' %}
    {% for side in ['base', 'theirs'] if (side ~ '__' ~ n[6:]) not in names %}
      {{ table_diff._fail(macro_name, 'candidates', candidates, "base__, ours__ and theirs__ columns for every merged column",
          "It lacks " ~ side ~ "__" ~ n[6:] ~ ". " ~ fix) }}
    {% endfor %}
    {% do columns.append(n[6:]) %}
  {% endfor %}
  {#- The merge's classified model (classify: python, ADR 0040) is the candidates plus the
      classification's columns: read as it is. With resolution policies it also has td_resolutions
      and resolved__<col> for each column with a policy. -#}
  {% set nk = key | length %}
  {% set flags = names[nk:] | map('lower') | list %}
  {% set resolved = [] %}
  {% for n in names[nk:] if n[:10] | lower == 'resolved__' %}{% do resolved.append(n[10:]) %}{% endfor %}
  {{ return({'key': key, 'columns': columns, 'types': types,
      'classified': 'merge_status' in flags and 'td_merged_from' in flags,
      'resolutions': 'td_resolutions' in flags, 'resolved': resolved}) }}
{% endmacro %}


{% macro _merge_classified(candidates, shape) %}
  {#- A FROM item: every candidate row plus merge_status, conflict_type and td_merged_from (where
      the merged row comes from: 'ours', 'theirs', 'cells' for cell_merged, 'resolved' for a key
      resolved by policies, NULL when absent). A classified model (`shape['classified']`, the
      Python classification of ADR 0040) has them already: its rows as they are. -#}
  {% if shape['classified'] %}
  (select * from {{ candidates }})
  {%- else %}
  (select
    *,
    case when merge_status != 'conflict' then cast(null as string)
      when td_in_base and td_in_ours and td_in_theirs then 'update_update'
      when td_in_base and td_in_ours then 'update_delete'
      when td_in_base then 'delete_update'
      else 'insert_insert' end as conflict_type,
    case
      when merge_status = 'theirs_only' then if(td_in_theirs, 'theirs', null)
      when merge_status = 'cell_merged' then 'cells'
      else if(td_in_ours, 'ours', null) end as td_merged_from
  from (
    select
      *,
      case
        when td_duplicate_key then 'duplicate_key'
        when td_in_base and td_in_ours and td_in_theirs then case
          when size(ours_changed) = 0 and size(theirs_changed) = 0 then 'unchanged'
          when size(theirs_changed) = 0 then 'ours_only'
          when size(ours_changed) = 0 then 'theirs_only'
          when size(ours_theirs_differ) = 0 then 'convergent'
          when exists(ours_changed, c -> array_contains(theirs_changed, c)
                      and array_contains(ours_theirs_differ, c)) then 'conflict'
          else 'cell_merged' end
        when td_in_base and not td_in_ours and not td_in_theirs then 'convergent'
        when td_in_base and td_in_ours then if(size(ours_changed) = 0, 'theirs_only', 'conflict')
        when td_in_base and td_in_theirs then if(size(theirs_changed) = 0, 'ours_only', 'conflict')
        when td_in_ours and td_in_theirs then if(size(ours_theirs_differ) = 0, 'convergent', 'conflict')
        when td_in_ours then 'ours_only'
        else 'theirs_only' end as merge_status
    from {{ candidates }}
  ) as td_status)
  {%- endif %}
{% endmacro %}


{% macro _merge_key_list(shape, prefix='') %}
  {#- The key columns, quoted, comma-separated (each prefixed with `prefix`, e.g. 'c.'). -#}
  {%- set out = [] -%}
  {%- for k in shape['key'] %}{% do out.append(prefix ~ table_diff.quote_identifier(k)) %}{% endfor -%}
  {{ return(out | join(', ')) }}
{% endmacro %}
