{#- Orders per status on the source side of the demo pair; exercises table_diff.quote_identifier. -#}
{%- set status_column = table_diff.quote_identifier('status') -%}

with source_orders as (
    select * from {{ ref('orders__source') }}
)

select
    {{ status_column }} as order_status,
    count(*) as n_orders,
    coalesce(sum(amount), 0) as total_amount
from source_orders
group by {{ status_column }}
