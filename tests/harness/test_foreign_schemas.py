"""Tools whose schema was written elsewhere: a real pydantic model's `model_json_schema()`, pydantic models as
parameters, and the `inputSchema` a real MCP server lists (issue 21, item 2). Each goes through a model turn:
the model sees the schema as written, valid calls run, invalid ones come back as error results."""

from __future__ import annotations

import pytest
from support.optional import need

need("mcp", "mcp")

import dataclasses
from typing import Any, Literal

import anyio
from harness_support import tool_results
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import TextContent
from pydantic import BaseModel, Field, field_validator

from flue_runtime import Harness, agent, use_model, use_tool
from flue_runtime.agents.tools import Tool, tool_from_function
from flue_runtime.errors import ToolFailure
from flue_runtime.models import ScriptedModel, ToolCall
from flue_runtime.models.anthropic import convert_tool as anthropic_tool
from flue_runtime.models.openai import convert_tool as openai_tool


class Address(BaseModel):
    city: str
    postcode: str = Field(pattern=r"^[0-9]{5}$")


class Item(BaseModel):
    sku: str
    quantity: int = Field(default=1, ge=1)

    @field_validator("sku")
    @classmethod
    def known(cls, sku: str) -> str:
        if sku.startswith("X"):
            raise ValueError(f"{sku} is discontinued")
        return sku


class Order(BaseModel):
    """An order to ship."""

    items: list[Item] = Field(min_length=1)
    ship_to: Address
    speed: Literal["standard", "express"] = "standard"


def run_turn(tool: Tool | Any, calls: list[dict[str, Any]]) -> tuple[ScriptedModel, list[dict[str, Any]]]:
    name = tool.name if isinstance(tool, Tool) else tool.__name__
    model = ScriptedModel([[ToolCall(name, arguments) for arguments in calls], "done"])

    @agent
    def shop() -> str:
        use_model(model)
        use_tool(tool)
        return "Ship orders."

    Harness(shop).session("s").prompt_sync("go")
    return model, tool_results(model)


GOOD = {"items": [{"sku": "A1", "quantity": 2}], "ship_to": {"city": "Lyon", "postcode": "69001"}}


def test_a_tool_from_a_pydantic_models_schema() -> None:
    """Before: `$defs`, `$ref` and `title` were refused when the Tool was made."""
    schema = Order.model_json_schema()
    assert set(schema["$defs"]) == {"Address", "Item"}  # nested models: the real thing, not a flat schema
    received: list[dict[str, Any]] = []

    def ship(**arguments: Any) -> str:
        received.append(arguments)
        order = Order.model_validate(arguments)
        return f"{len(order.items)} line(s) to {order.ship_to.city}"

    tool = Tool("ship", "Ship an order.", schema, ship)
    model, (ok, wrong_code, wrong_item, empty) = run_turn(
        tool,
        [
            GOOD,
            {**GOOD, "ship_to": {"city": "Lyon", "postcode": "6900"}},
            {**GOOD, "items": [{"sku": "A1", "quantity": 0}, {"quantity": 1}]},
            {"items": [], "ship_to": {"city": "Lyon", "postcode": "69001"}, "speed": "overnight"},
        ],
    )
    assert model.requests[0].tools == [{"name": "ship", "description": "Ship an order.", "parameters": schema}]
    assert (ok["content"], ok["is_error"]) == ("1 line(s) to Lyon", False)
    assert received == [GOOD]  # the invalid calls never reached the function
    assert (
        wrong_code["is_error"]
        and "argument 'ship_to'['postcode'] must match the pattern ^[0-9]{5}$" in (wrong_code["content"])
    )
    assert "argument 'items'[0]['quantity'] must be at least 1, not 0" in wrong_item["content"]
    assert "argument 'items'[1] is missing required property 'sku'" in wrong_item["content"]
    assert "argument 'items' must hold at least 1 item, not 0" in empty["content"]
    assert 'argument \'speed\' must be one of "standard", "express", not "overnight"' in empty["content"]
    assert empty["content"].endswith(
        '(parameters: items: array, ship_to: Address, speed: one of "standard", "express")'
    )


def test_the_providers_are_sent_the_schema_as_written() -> None:
    schema = Order.model_json_schema()
    spec = Tool("ship", "Ship an order.", schema, lambda **kwargs: "").spec()
    assert anthropic_tool(spec)["input_schema"] is schema
    converted = openai_tool(spec)["function"]
    assert converted["parameters"] is schema and "strict" not in converted  # strict mode would rewrite it


@dataclasses.dataclass
class Gift:
    message: str


def order_up(order: Order, extras: list[Item] | None = None, wrap: Gift | Address | None = None) -> str:
    """Place an order.

    Args:
        order: What to ship and where.
    """
    assert isinstance(order, Order) and isinstance(order.items[0], Item)
    extra = [item.sku for item in extras or []]
    return f"{order.items[0].sku} x{order.items[0].quantity} via {order.speed}, extras {extra}, wrap {wrap!r}"


def test_a_parameter_annotated_with_a_pydantic_model() -> None:
    tool = tool_from_function(order_up)
    parameters = tool.parameters
    assert parameters["properties"]["order"] == {"$ref": "#/$defs/Order", "description": "What to ship and where."}
    assert parameters["properties"]["extras"]["anyOf"][0] == {"type": "array", "items": {"$ref": "#/$defs/Item"}}
    assert set(parameters["$defs"]) == {"Order", "Item", "Address"}  # one `$defs` shared by every model
    assert parameters["$defs"]["Order"]["properties"]["ship_to"] == {"$ref": "#/$defs/Address"}
    wrap_address = {"city": "Nice", "postcode": "06000"}
    model, (ok, with_extras, refused, discontinued) = run_turn(
        order_up,
        [
            {"order": GOOD},
            {"order": {**GOOD, "speed": "express"}, "extras": [{"sku": "B2"}], "wrap": wrap_address},
            {"order": {**GOOD, "ship_to": {"city": "Lyon"}}, "wrap": {"message": 5}},
            {"order": GOOD, "extras": [{"sku": "X9"}]},
        ],
    )
    assert model.requests[0].tools[0]["parameters"] == parameters
    assert (ok["content"], ok["is_error"]) == ("A1 x2 via standard, extras [], wrap None", False)
    assert with_extras["content"] == ("A1 x2 via express, extras ['B2'], wrap Address(city='Nice', postcode='06000')")
    assert "argument 'order'['ship_to'] is missing required property 'postcode'" in refused["content"]
    assert "argument 'wrap' must be object or Address or null, not {\"message\": 5}" in refused["content"]
    assert "(as object: argument 'wrap'['message'] must be string, not integer)" in refused["content"]
    # a rule only pydantic knows (a field validator) still reaches the model as an argument error
    assert discontinued["is_error"]
    assert "argument 'extras'[0]['sku']: Value error, X9 is discontinued" in discontinued["content"]


def test_a_pydantic_refusal_outside_a_model_turn_is_an_argument_error() -> None:
    tool = tool_from_function(order_up)
    with pytest.raises(ToolFailure, match=r"order_up: argument 'order'\['items'\]\[0\]\['sku'\]: Value error"):
        tool.check_arguments({"order": {**GOOD, "items": [{"sku": "X1"}]}})


# --- a real MCP server's tool -------------------------------------------------------------------


class Card(BaseModel):
    kind: Literal["card"]
    number: str = Field(pattern=r"^[0-9]{12,19}$")


class Bank(BaseModel):
    kind: Literal["bank"]
    iban: str


def payments_server(paid: list[str]) -> MCPServer:
    server = MCPServer("payments")

    @server.tool()
    def pay(amount: int, method: Card | Bank, note: str | None = None) -> str:
        """Take a payment."""
        paid.append(f"{amount} by {method.kind}")
        return f"paid {amount} by {method.kind}"

    return server


def test_a_tool_listed_by_a_real_mcp_server() -> None:
    """The MCP SDK's server writes `inputSchema` with `$defs`, `anyOf` of `$ref`s and `title`s (pydantic's);
    flue offers it to the model as listed, checks each call, and forwards the valid ones over MCP."""
    paid: list[str] = []

    async def session() -> tuple[dict[str, Any], ScriptedModel]:
        async with Client(payments_server(paid)) as client:
            [listed] = (await client.list_tools()).tools
            schema = listed.input_schema
            assert "$defs" in schema and "anyOf" in schema["properties"]["method"]

            async def forward(**arguments: Any) -> str:
                result = await client.call_tool(listed.name, arguments)
                [content] = result.content
                assert isinstance(content, TextContent)
                return content.text

            tool = Tool(listed.name, listed.description or "", schema, forward)
            model = ScriptedModel(
                [
                    [
                        ToolCall("pay", {"amount": 30, "method": {"kind": "card", "number": "4111111111111111"}}),
                        ToolCall("pay", {"amount": 5, "method": {"kind": "bank", "iban": "DE02"}, "note": None}),
                        ToolCall("pay", {"amount": "30", "method": {"kind": "card", "number": "41"}}),
                        ToolCall("pay", {"method": {"kind": "cash"}}),
                    ],
                    "done",
                ]
            )

            @agent
            def cashier() -> str:
                use_model(model)
                use_tool(tool)
                return "Take payments."

            await Harness(cashier).session("s").prompt("charge them")
            return schema, model

    schema, model = anyio.run(session)
    assert model.requests[0].tools == [{"name": "pay", "description": "Take a payment.", "parameters": schema}]
    card, bank, wrong, unknown = tool_results(model)
    assert (card["content"], card["is_error"]) == ("paid 30 by card", False)
    assert (bank["content"], bank["is_error"]) == ("paid 5 by bank", False)
    assert sorted(paid) == ["30 by card", "5 by bank"]  # the invalid calls never reached the server (calls run at once)
    assert wrong["is_error"] and "argument 'amount' must be integer, not string" in wrong["content"]
    assert "(as Card: argument 'method'['number'] must match the pattern ^[0-9]{12,19}$)" in wrong["content"]
    assert "missing required argument 'amount'" in unknown["content"]
    assert 'argument \'method\' must be Card or Bank, not {"kind": "cash"}' in unknown["content"]
