from __future__ import annotations

import pytest

from flue_runtime import define_skill
from flue_runtime.mount.reference import SkillReference


@pytest.fixture
def refunds() -> SkillReference:
    return define_skill(
        name="refunds",
        description="Handle refund requests. Use when a customer asks for money back.",
        instructions="# Refunds\n\nRead policy.md, then check the order date.\n",
        files={"policy.md": "Orders younger than 30 days are refundable.\n", "forms/claim.pdf": b"%PDF-1.4\x00\xff"},
    )


@pytest.fixture
def vip() -> SkillReference:
    return define_skill(name="vip", description="Extra care for VIP customers.", instructions="Offer a voucher.\n")
