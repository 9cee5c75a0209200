"""The agent: two skills from folders, one defined in code from a runbook, one unlocked by state."""

from __future__ import annotations

from flue_runtime import agent, define_skill, markdown, skill, use_model, use_skill, use_state
from flue_runtime.models import Model

# Skill folders outside the package: the build hook packs them into the wheel.
REFUNDS = skill("../../skills/refunds/SKILL.md")
VIP = skill("../../skills/vip/SKILL.md")

# A skill written in Python, its instructions from a markdown runbook bundled as text.
ESCALATION = define_skill(
    name="escalation",
    description="Escalate a case to a human supervisor. Use when the customer is angry or asks for a manager.",
    instructions=markdown("./runbooks/escalation.md"),
    metadata={"owner": "support-leads"},
)

MODEL: Model | str = "anthropic/claude-haiku-4-5"


@agent
def support() -> str:
    use_model(MODEL)
    use_skill(REFUNDS)
    use_skill(ESCALATION)
    if use_state("vip", False):
        use_skill(VIP)
    return "You are the support agent of Example Books. Answer customer questions briefly and politely."
