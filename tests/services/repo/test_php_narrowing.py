"""PHP receivers a language server follows and a plain name search does not: `static::`, `self::`
and `parent::` calls, properties promoted by the constructor, `instanceof` narrowing, and a method
whose docblock returns an array of a class, iterated by `foreach`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

ITEM = """\
<?php
namespace Shop;

class Item
{
    public function price(): int
    {
        return 1;
    }
}
"""

OTHER = """\
<?php
namespace Shop;

class Coupon
{
    public function price(): int
    {
        return 0;
    }

    public static function make(): Coupon
    {
        return new Coupon();
    }
}
"""

BASE = """\
<?php
namespace Shop;

abstract class Base
{
    public static function make(): static
    {
        return new static();
    }

    public function total(): int
    {
        return 0;
    }
}
"""

CART = """\
<?php
namespace Shop;

class Cart extends Base
{
    public function __construct(private Item $first, protected readonly Item $second)
    {
    }

    /**
     * @return array<int, Item>
     */
    public function items(): array
    {
        return [$this->first];
    }

    /** @return Item[] */
    public function more(): array
    {
        return [$this->second];
    }

    public function total(): int
    {
        $sum = parent::total();
        foreach ($this->items() as $item) {
            $sum += $item->price();
        }
        $all = $this->more();
        foreach ($all as $each) {
            $sum += $each->price();
        }
        $sum += $this->first->price();
        $sum += $this->second->price();
        return $sum;
    }

    public function check(mixed $thing): int
    {
        $cart = static::make();
        $copy = self::make();
        if ($thing instanceof Item) {
            return $thing->price() + $cart->total() + $copy->total();
        }
        /** @var Item $found */
        $found = $this->lookup();
        return $found->price();
    }

    public function lookup()
    {
        return $this->first;
    }
}
"""


@pytest.fixture(scope="module")
def php_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("php") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {"src/Item.php": ITEM, "src/Coupon.php": OTHER, "src/Base.php": BASE, "src/Cart.php": CART}
    commit(repo, "Start", files)
    return repo


async def _targets(repo: Path, name: str) -> dict[int, str | None]:
    out = await ask(repo, "pallium_callers", name=name)
    return {r.line: r.target_qualified for r in out.references if r.path == "src/Cart.php"}


async def test_a_foreach_over_a_method_returning_an_array_of_a_class_types_its_value(php_repo: Path) -> None:
    found = await _targets(php_repo, "price")
    assert found[28] == "Item.price"  # `foreach ($this->items() as $item)`, `@return array<int, Item>`
    assert found[32] == "Item.price"  # `$all = $this->more()`, `@return Item[]`


async def test_properties_promoted_by_the_constructor_type_their_calls(php_repo: Path) -> None:
    found = await _targets(php_repo, "price")
    assert found[34] == "Item.price"
    assert found[35] == "Item.price"  # `protected readonly Item $second`


async def test_instanceof_narrows_the_variable_inside_its_branch(php_repo: Path) -> None:
    found = await _targets(php_repo, "price")
    assert found[44] == "Item.price"  # never Coupon's


async def test_an_inline_var_docblock_types_the_variable_after_its_statement(php_repo: Path) -> None:
    found = await _targets(php_repo, "price")
    assert found[48] == "Item.price"  # `/** @var Item $found */` above `$found = $this->lookup();`


async def test_static_self_and_parent_calls_reach_the_class_s_own_or_its_base_s(php_repo: Path) -> None:
    found = await _targets(php_repo, "total")
    assert found[26] == "Base.total"  # `parent::total()`, never Cart's own
    assert found[44] == "Cart.total"  # `static::make()` and `self::make()` return a Cart
    make = await _targets(php_repo, "make")
    assert make[41] == make[42] == "Base.make"  # inherited, never Coupon's
