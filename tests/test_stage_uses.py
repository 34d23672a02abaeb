"""check.uses on an in-memory graph: every use of a changed definition, found however it is named."""

from __future__ import annotations

from graphguard.check import interface, uses
from graphguard.config import Config
from graphguard.model import UseKind
from tests.stages import change

PRICING = """
    class Cart:
        def total(self, tax=0):
            return tax

    def price(amount):
        return amount
"""
REPO = {
    "pkg/__init__.py": "",
    "pkg/pricing.py": PRICING,
    "pkg/alias.py": "from pkg.pricing import price as cost\n\ndef run():\n    return cost(1)\n",
    "pkg/module.py": "import pkg.pricing\n\ndef run():\n    return pkg.pricing.price(2)\n",
    "pkg/carts.py": "from pkg.pricing import Cart\n\ndef run(c: Cart):\n    return c.total(tax=1)\n",
    "gen/made.py": "from pkg.pricing import price\nprice(3)\n",
}
NEW_PRICE = PRICING.replace("def price(amount):", "def price(amount, currency):")
NEW_TOTAL = PRICING.replace("def total(self, tax=0):", "def total(self, *, rate=0):")


def gathered(new: dict[str, str | None], config: Config | None = None) -> dict[str, uses.Gathered]:
    config = config or Config()
    over = change(REPO, new, config=config)
    return {ic.qualname: uses.gather(over, config, ic) for ic in interface.find(over, config).changes}


def places(g: uses.Gathered) -> list[tuple[str, int, str, UseKind]]:
    return sorted((f.path, f.line, f.use.caller, f.use.kind) for f in g.uses)


def test_a_call_under_an_alias_and_through_the_module_is_found() -> None:
    found = gathered({"pkg/pricing.py": NEW_PRICE})["pkg.pricing.price"]
    calls = [p for p in places(found) if p[3] is UseKind.CALL]
    assert calls == [("gen/made.py", 2, "made", UseKind.CALL), ("pkg/alias.py", 4, "pkg.alias.run", UseKind.CALL),
                     ("pkg/module.py", 4, "pkg.module.run", UseKind.CALL)]


def test_a_method_call_on_an_annotated_receiver_is_found() -> None:
    found = gathered({"pkg/pricing.py": NEW_TOTAL})["pkg.pricing.Cart.total"]
    assert [p for p in places(found) if p[3] is UseKind.CALL] == [("pkg/carts.py", 4, "pkg.carts.run", UseKind.CALL)]


def test_a_generated_file_is_left_out_and_named() -> None:
    found = gathered({"pkg/pricing.py": NEW_PRICE}, Config(generated=("gen/**",)))["pkg.pricing.price"]
    assert "gen/made.py" not in {f.path for f in found.uses}
    assert found.generated == ["gen/made.py"]


def test_a_call_written_in_the_change_itself_is_found_and_marked_written() -> None:
    new = {"pkg/pricing.py": NEW_PRICE, "pkg/alias.py": "from pkg.pricing import price as cost\n\ndef run():\n    return cost(1, 'EUR')\n"}
    found = gathered(new)["pkg.pricing.price"]
    ours = [f for f in found.uses if f.path == "pkg/alias.py" and f.use.kind is UseKind.CALL]
    assert [(f.line, f.reaches_new, f.written) for f in ours] == [(4, True, True)]
