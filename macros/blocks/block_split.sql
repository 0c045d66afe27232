{#-
  table_diff.block_split: the split step of a pair in SQL, for targets that cannot run Python
  models (dbt-spark `method: thrift`), or by choice (`table-diff scaffold pair --split sql`). It
  writes exactly the rows of the Python step `dbt_table_diff.split.block_split` (ADR 0025; a test
  compares the two on random leaf tables).

  Signatures are additive, so the walk down the block tree is an aggregation over the leaf table
  `block_hashes` (at most 2 * leaf_count rows): never a read of either side. The block of leaf i at
  level l is floor(i / f^(D - l)). A block at level l is a compare unit when every ancestor is
  split (mismatched or holding duplicate keys, more than compare_unit_size rows on its larger side,
  above the leaves) and the block itself is mismatched or holds duplicate keys but is not split.
  In SQL: for each leaf, the first level whose block is not split ("stop"); the block of a leaf at
  its stop level is a unit when it differs. The 32-bit-split hash sums are added as decimal(38, 0):
  a level-0 block of more than 2^31 rows would overflow a bigint sum (an error under ANSI, a wrap
  without it, where two different sums may wrap equal), and the Python walk adds exact integers.
  Early stop (`select_units`): in key order, a unit is selected while the differing rows the units
  before it are certain to hold (each at least one, at least its row-count difference) stay below
  max_diff_rows.

  With the quick check (ADR 0020) block_hashes holds one whole-table row per side (leaf_id NULL):
  equal, no unit; different, every level-0 block is a unit (reason whole_table, rows NULL).
-#}
{% macro block_split(ranges, block_hashes) %}
  {% do table_diff._require_relation('block_split', 'ranges', ranges) %}
  {% do table_diff._require_relation('block_split', 'block_hashes', block_hashes) %}
  {{ return(adapter.dispatch('block_split', 'table_diff')(ranges, block_hashes)) }}
{% endmacro %}


{% macro default__block_split(ranges, block_hashes) %}
  {% if execute %}
    {{ exceptions.raise_compiler_error("table_diff.block_split: not implemented for adapter '" ~ adapter.type()
        ~ "'. Supported: spark (and databricks, which falls back to spark__).") }}
  {% endif %}
{% endmacro %}


{% macro spark__block_split(ranges, block_hashes) %}
  {% if not execute %}
    {{ return("select 0 as unit_id") }}
  {% endif %}
  {% set spec = table_diff._spec_from_ranges('block_split', ranges) %}
  {% do table_diff._require_run('block_split', 'block_hashes', block_hashes, spec) %}
  {% set shape = table_diff._split_input_shape(block_hashes) %}
  {% set layout = spec['layout'] %}
  {% set p = {'f': spec['split_factor'] | int, 'depth': layout['depth'] | int, 'cus': spec['compare_unit_size'] | int,
              'block_count': layout['block_count'] | int, 'max_diff_rows': spec['max_diff_rows'] | int,
              'run_id': spec['run_id'], 'label': spec['source'] ~ ' vs ' ~ spec['target']} %}
  {% set ctes = table_diff._split_whole_ctes if shape['whole'] else table_diff._split_walk_ctes %}
  {% do table_diff._split_log(ctes(block_hashes, p, for_log=true), p, shape['whole']) %}
  {{ ctes(block_hashes, p) }}
  select * from td_units
{% endmacro %}


{% macro _split_input_shape(block_hashes) %}
  {#- block_hashes as table_diff.block_hashes writes it, checked before the walk (the Python step's
      checks, and a few it cannot make: one row per side and leaf, no NULL count or sum).
      Returns {'whole': true} for the quick check's two whole-table rows. -#}
  {% set names = adapter.get_columns_in_relation(block_hashes) | map(attribute='name') | map('lower') | list %}
  {% set needed = ['side', 'leaf_id', 'n_rows', 'n_keys', 'h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
  {% set missing = needed | reject('in', names) | list %}
  {% if missing %}
    {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "a table built by table_diff.block_hashes, with columns " ~ needed | join(', '),
        "It lacks " ~ missing | join(', ') ~ ". Pass ref('<pair>__block_hashes') and rebuild it: dbt build --select <pair>__block_hashes+.") }}
  {% endif %}
  {% set row = run_query("select"
      ~ " min(side) filter (where side is null or side not in ('source', 'target')),"
      ~ " count_if(side is null or side not in ('source', 'target')),"
      ~ " count_if(leaf_id is null and side = 'source'), count_if(leaf_id is null and side = 'target'),"
      ~ " count_if(leaf_id is not null),"
      ~ " count_if(leaf_id is not null) - count(distinct side, leaf_id),"
      ~ " count_if(n_rows is null or n_keys is null or h1_hi is null or h1_lo is null or h2_hi is null or h2_lo is null)"
      ~ " from " ~ block_hashes).rows[0] %}
  {% if row[1] | int > 0 %}
    {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "side 'source' or 'target' on every row",
        (row[1] | int) ~ " rows have side '" ~ row[0] ~ "'. Rebuild it with table_diff.block_hashes: dbt build --select <pair>__block_hashes+.") }}
  {% endif %}
  {% set whole_source, whole_target, leaves = row[2] | int, row[3] | int, row[4] | int %}
  {% if whole_source + whole_target > 0 %}
    {% if whole_source != 1 or whole_target != 1 %}
      {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "one whole-table signature (leaf_id NULL) per side, as the quick check of table_diff.block_hashes writes",
          "It holds " ~ whole_source ~ " for source and " ~ whole_target ~ " for target. Rebuild it: dbt build --select <pair>__block_hashes+.") }}
    {% endif %}
    {% if leaves > 0 %}
      {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "either whole-table (leaf_id NULL) or per-leaf rows",
          "It mixes both. Rebuild it: dbt build --select <pair>__block_hashes+.") }}
    {% endif %}
  {% endif %}
  {% if row[5] | int > 0 %}
    {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "one row per side and leaf_id",
        (row[5] | int) ~ " rows repeat a (side, leaf_id). Rebuild it: dbt build --select <pair>__block_hashes+.") }}
  {% endif %}
  {% if row[6] | int > 0 %}
    {{ table_diff._fail('block_split', 'block_hashes', block_hashes, "no NULL in n_rows, n_keys, h1_hi, h1_lo, h2_hi, h2_lo",
        (row[6] | int) ~ " rows hold one. Rebuild it: dbt build --select <pair>__block_hashes+.") }}
  {% endif %}
  {{ return({'whole': whole_source + whole_target > 0}) }}
{% endmacro %}


{% macro _split_sums(over=none) %}
  {#- Per-side sums of the signature columns of block_hashes aliased `h`: an aggregate, or with
      `over` a window of that name. Hash halves as decimal(38, 0): exact (see the file's comment). -#}
  {% for side, s in [('source', 's'), ('target', 't')] %}
    sum(if(h.side = '{{ side }}', cast(h.n_rows as bigint), 0)){{ ' over ' ~ over if over }} as {{ s }}_rows,
    sum(if(h.side = '{{ side }}', cast(h.n_keys as bigint), 0)){{ ' over ' ~ over if over }} as {{ s }}_keys,
    {% for c in ['h1_hi', 'h1_lo', 'h2_hi', 'h2_lo'] %}
    sum(if(h.side = '{{ side }}', cast(h.{{ c }} as decimal(38, 0)), 0)){{ ' over ' ~ over if over }} as {{ s }}_{{ c }}{{ ',' if not loop.last or side == 'source' }}
    {% endfor %}
  {% endfor %}
{% endmacro %}


{% macro _split_differs(a='') %}
  {#- The two sides' signatures (row count and the four sums) differ. -#}
  ({{ a }}s_rows != {{ a }}t_rows or {{ a }}s_h1_hi != {{ a }}t_h1_hi or {{ a }}s_h1_lo != {{ a }}t_h1_lo
    or {{ a }}s_h2_hi != {{ a }}t_h2_hi or {{ a }}s_h2_lo != {{ a }}t_h2_lo)
{% endmacro %}


{% macro _split_unit_columns(p) %}
  {#- The output columns (dbt_table_diff.split.UNIT_SCHEMA) over `td_found` (level, block_id, span,
      leaf_lo, source_rows, target_rows, reason, cost): unit_id in key order, `selected` by the
      early stop. -#}
  select
    cast(row_number() over (order by leaf_lo) - 1 as int) as unit_id,
    cast(level as int) as level,
    cast(block_id as bigint) as block_id,
    cast((leaf_lo - pmod(leaf_lo, {{ p['span0'] }})) div {{ p['span0'] }} as bigint) as level0_block_id,
    cast(leaf_lo as int) as leaf_lo,
    cast(leaf_lo + span - 1 as int) as leaf_hi,
    cast(source_rows as bigint) as source_rows,
    cast(target_rows as bigint) as target_rows,
    cast(reason as string) as reason,
    coalesce(sum(cost) over (order by leaf_lo rows between unbounded preceding and 1 preceding), 0)
    < {{ p['max_diff_rows'] }} as selected,
    {{ table_diff._sql_string(p['run_id']) }} as run_id
  from td_found
{% endmacro %}


{% macro _split_whole_ctes(block_hashes, p, for_log=false) %}
  {#- The quick check's two whole-table rows: equal, no unit; different, every level-0 block. -#}
  {% do p.update({'span0': p['f'] ** p['depth']}) %}
  with td_whole as (
    select {{ table_diff._split_sums() }}
    from {{ block_hashes }} as h
  ),

  td_found as (
    select
      0 as level,
      cast(b.block_id as bigint) as block_id,
      cast({{ p['span0'] }} as bigint) as span,
      cast(b.block_id as bigint) * {{ p['span0'] }} as leaf_lo,
      cast(null as bigint) as source_rows,
      cast(null as bigint) as target_rows,
      'whole_table' as reason,
      cast(1 as decimal(38, 0)) as cost
    from td_whole as w
    cross join (select explode(sequence(0, {{ p['block_count'] - 1 }})) as block_id) as b
    where {{ table_diff._split_differs('w.') }}
  ),

  td_units as (
    {{ table_diff._split_unit_columns(p) }}
  ){% if for_log %},

  td_log as (
    select
      -1 as level, max(w.s_rows) as n_in, max(w.t_rows) as n_differs, cast(0 as decimal(38, 0)) as n_rows,
      cast(max(if({{ table_diff._split_differs('w.') }}, 1, 0)) as bigint) as n_split
    from td_whole as w
    union all
    {{ table_diff._split_log_skipped_units() }}
  ){% endif %}
{% endmacro %}


{% macro _split_log_skipped_units() %}
  {#- The log's row for the early stop (level -2): units in, units left out by max_diff_rows. -#}
    select -2 as level, count(*) as n_in, count_if(not u.selected) as n_differs,
      cast(0 as decimal(38, 0)) as n_rows, cast(0 as bigint) as n_split
    from td_units as u
{%- endmacro %}


{% macro _split_walk_ctes(block_hashes, p, for_log=false) %}
  {#- The walk over per-leaf rows, every level at once (see the file's comment): each (side, leaf)
      row once per level, with its block's sums by a window (no join); a leaf's stop level by a
      second window; the blocks at their leaves' stop level that differ are the units. -#}
  {% set spans = [] %}
  {% for level in range(p['depth'] + 1) %}{% do spans.append(p['f'] ** (p['depth'] - level)) %}{% endfor %}
  {% do p.update({'span0': spans[0]}) %}
  with td_level as (
    select * from values
    {%- for span in spans %} ({{ loop.index0 }}, cast({{ span }} as bigint)){{ ',' if not loop.last }}{% endfor %}
    as td_level (level, span)
  ),

  td_path as (
    -- Each leaf's block at each level: floor division (pmod keeps it floor for any leaf_id).
    select
      h.leaf_id,
      v.level,
      v.span,
      (cast(h.leaf_id as bigint) - pmod(cast(h.leaf_id as bigint), v.span)) div v.span as block_id,
      {{ table_diff._split_sums(over='td_block') }}
    from {{ block_hashes }} as h
    cross join td_level as v
    window td_block as (partition by v.level, (cast(h.leaf_id as bigint) - pmod(cast(h.leaf_id as bigint), v.span)) div v.span)
  ),

  td_flag as (
    select
      leaf_id,
      level,
      span,
      block_id,
      s_rows,
      t_rows,
      {{ table_diff._split_differs() }} as mismatched,
      s_rows > s_keys or t_rows > t_keys as duplicates,
      greatest(s_rows, t_rows) as larger_side
    from td_path
  ),

  td_state as (
    select
      *,
      (mismatched or duplicates) and larger_side > {{ p['cus'] }} and level < {{ p['depth'] }} as split
    from td_flag
  ),

  td_reached as (
    -- A leaf's stop: the first level where its block is not split (its leaf level at most). The
    -- walk reaches the blocks at or above it.
    select *
    from (
      select
        *,
        min(if(split, null, level)) over (partition by leaf_id) as stop
      from td_state
    ) as s
    where level <= stop
  ),

  td_found as (
    select distinct
      level,
      block_id,
      span,
      block_id * span as leaf_lo,
      s_rows as source_rows,
      t_rows as target_rows,
      concat_ws('+', if(mismatched, 'mismatch', null), if(duplicates, 'duplicate_keys', null)) as reason,
      cast(greatest(1, abs(s_rows - t_rows)) as decimal(38, 0)) as cost
    from td_reached
    where level = stop and (mismatched or duplicates)
  ),

  td_units as (
    {{ table_diff._split_unit_columns(p) }}
  ){% if for_log %},

  td_log as (
    select
      level, count(*) as n_in, count_if(mismatched or duplicates) as n_differs,
      cast(coalesce(sum(if(mismatched or duplicates, larger_side, 0)), 0) as decimal(38, 0)) as n_rows,
      count_if(split) as n_split
    from (select distinct level, block_id, mismatched, duplicates, split, larger_side from td_reached) as b
    group by level
    union all
    {{ table_diff._split_log_skipped_units() }}
  ){% endif %}
{% endmacro %}


{% macro _split_log(ctes, p, whole) %}
  {#- The Python step's log lines: per level, blocks in, mismatched and the rows in them (children
      of split blocks count as in, as the Python walk's frontier does); the early stop. One small
      query over the leaf table, never a read of a side. -#}
  {% set stats = {} %}
  {% for row in run_query(ctes ~ " select level, n_in, n_differs, n_rows, n_split from td_log").rows %}
    {% do stats.update({row[0] | int: row}) %}
  {% endfor %}
  {% set prefix = "table_diff split " ~ p['label'] ~ ": " %}
  {% if whole %}
    {% set w = stats[-1] %}
    {% if w[4] | int == 0 %}
      {% do log(prefix ~ "identical by whole-table signature (" ~ (w[1] | int) ~ " rows each side): nothing to split", info=true) %}
    {% else %}
      {% do log(prefix ~ "whole-table signatures differ (" ~ (w[1] | int) ~ " source rows, " ~ (w[2] | int)
          ~ " target rows) and no leaf was grouped: every block is a compare unit, compared by the row diff in one read of each side", info=true) %}
    {% endif %}
  {% else %}
    {% set ns = namespace(blocks_in=(stats[0][1] | int) if 0 in stats else 0) %}
    {% for level in range(p['depth'] + 1) %}
      {% if ns.blocks_in > 0 or level == 0 %}
        {% set s = stats.get(level) %}
        {% do log(prefix ~ "level " ~ level ~ ": blocks in " ~ ns.blocks_in ~ ", mismatched " ~ ((s[2] | int) if s else 0)
            ~ ", rows in them " ~ ((s[3] | int) if s else 0), info=true) %}
        {% set ns.blocks_in = ((s[4] | int) * p['f']) if s else 0 %}
      {% endif %}
    {% endfor %}
  {% endif %}
  {% set u = stats[-2] %}
  {% if u[2] | int > 0 %}
    {% do log("table_diff split: max_diff_rows=" ~ p['max_diff_rows'] ~ " reached: " ~ (u[2] | int) ~ " of "
        ~ (u[1] | int) ~ " mismatched units left out (result is partial)", info=true) %}
  {% endif %}
{% endmacro %}
