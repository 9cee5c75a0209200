"""A customer-support agent whose skills are bundled in its own wheel."""

from .agent import ESCALATION, REFUNDS, VIP, support

__all__ = ["ESCALATION", "REFUNDS", "VIP", "support"]
