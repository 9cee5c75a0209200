"""The skills both turn-overhead probes declare (`turns.py` for flue's harness, `turns_pydantic_ai.py` for the
peer): one definition, so the two sides of the comparison always get the same input."""

from flue_runtime import SkillReference, define_skill

#: A few hundred words of instructions: what a skill's SKILL.md body usually holds.
INSTRUCTIONS = "\n\n".join(
    f"## Step {n}\n\nCheck the order history first; quote the policy section that applies, and say which "
    "refund path (card, store credit, bank transfer) fits the customer's case. Never promise a date."
    for n in range(1, 9)
)


def policy_skills(count: int) -> list[SkillReference]:
    """`count` skills made with `define_skill`, each with a support file."""
    return [
        define_skill(
            name=f"policy-{n:03d}",
            description=f"Refund and returns policy for product line {n}: when a customer asks for money back, "
            "an exchange or a late delivery.",
            instructions=INSTRUCTIONS,
            files={"references/policy.md": "# Policy\n\n" + "Section text. " * 200},
        )
        for n in range(count)
    ]
