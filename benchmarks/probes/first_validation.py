"""Child process of the validation benchmark: what validating costs a fresh process the first time.

    python first_validation.py define|workspace|tools|tools-jsonschema|jsonschema|docstring[-LIBRARY] [WORKSPACE]

Each kind imports the API a user calls (timed apart), then validates once:
- `define`: `define_skill(...)`, every field and file checked;
- `workspace`: the harness's discovery of `WORKSPACE/.agents/skills/*/SKILL.md` (the folder
  vetted, the frontmatter read and checked; `yaml` says whether PyYAML had to be imported);
- `tools`: a typed function made a tool (its schema compiled) and one call's arguments checked;
- `tools-jsonschema`: the same schema compiled by jsonschema instead (`compile_schema`: what every tool
  would cost without the compact validator), one call's arguments checked;
- `jsonschema`: what the first check cost before flue had its own validator: importing
  jsonschema, checking the skill schema against its meta-schema, validating one mapping;
- `docstring`: a typed function whose docstring has an `Args:` section made a tool (its description and each
  parameter's read by `tools._parse_docstring`); `docstring-docstring_parser` and `docstring-griffe`: the same,
  and the docstring parsed again by that library (what reading it through the library would add: its import and
  its parse; pydantic-ai reads docstrings with griffe).

Prints one JSON object of times in ms.
"""

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402


def main() -> None:
    kind = sys.argv[1]
    out: dict[str, float | bool] = {}
    if kind == "define":
        from flue_runtime import define_skill

        t1 = time.perf_counter()
        define_skill(
            name="refunds",
            description="Handle refund requests. Use when a customer asks for money back.",
            instructions="Check the order, then apply policy.md.",
            metadata={"team": "billing"},
            files={"policy.md": "Refunds within 30 days.\n"},
        )
    elif kind == "workspace":
        from flue_runtime.agents.sandbox import LocalSandbox
        from flue_runtime.agents.workspace import discover_workspace_skills

        t1 = time.perf_counter()
        found = discover_workspace_skills(LocalSandbox(sys.argv[2]))
        assert found, "no workspace skill found"
        out["yaml"] = "yaml" in sys.modules
    elif kind == "tools":
        from flue_runtime.agents.tools import tool_from_function

        t1 = time.perf_counter()

        def lookup(order_id: str, items: list[int], region: str = "eu") -> str:
            """Look up an order."""
            return order_id

        tool_from_function(lookup).check_arguments({"order_id": "A-1", "items": [1, 2]})
    elif kind == "tools-jsonschema":
        from flue_runtime.agents.json_schema import compile_schema
        from flue_runtime.agents.tools import check_arguments, tool_from_function

        t1 = time.perf_counter()

        def lookup(order_id: str, items: list[int], region: str = "eu") -> str:
            """Look up an order."""
            return order_id

        schema = compile_schema(tool_from_function(lookup).parameters)
        check_arguments("lookup", schema, {"order_id": "A-1", "items": [1, 2]})
        out["jsonschema"] = "jsonschema" in sys.modules
    elif kind.startswith("docstring"):
        from flue_runtime.agents.tools import tool_from_function

        t1 = time.perf_counter()

        def refund(order_id: str, amount: float, reason: str = "") -> str:
            """Refund part or all of an order.

            Use when a customer asks for money back and the order is younger than 30 days.

            Args:
                order_id: The order's id, as the customer gives it (A-1234).
                amount: How much to refund, in the order's currency; at most what was paid.
                reason: Why, in the customer's words.
            """
            return order_id

        made = tool_from_function(refund)
        assert made.parameters["properties"]["amount"]["description"].startswith("How much")
        if kind == "docstring-docstring_parser":
            import docstring_parser

            assert len(docstring_parser.parse(refund.__doc__ or "").params) == 3
        elif kind == "docstring-griffe":
            import logging

            from griffe import Docstring

            logging.getLogger("griffe").setLevel(logging.ERROR)  # (no signature given: no annotation to read)

            assert Docstring(refund.__doc__ or "").parse("google")
    else:
        from flue_runtime.format.schema import schema

        t1 = time.perf_counter()
        import jsonschema

        cls = jsonschema.validators.validator_for(schema())
        cls.check_schema(schema())
        list(cls(schema()).iter_errors({"name": "refunds", "description": "Handle refunds."}))
    t2 = time.perf_counter()
    out.update({"import_ms": (t1 - _T0) * 1e3, "first_ms": (t2 - t1) * 1e3})
    print(json.dumps(out))


main()
