"""Checking messages against the JSON Schemas that /openapi.json publishes."""

from __future__ import annotations

from functools import cache
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


@cache
def openapi(http: str) -> dict[str, Any]:
    document: dict[str, Any] = httpx.get(f"{http}/openapi.json").json()
    return document


class Contract:
    """The schemas of an OpenAPI document, by component name."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._validators: dict[str, Draft202012Validator] = {}

    def validator(self, name: str) -> Draft202012Validator:
        found = self._validators.get(name)
        if found is None:
            # The whole document rides along, so that #/components/... references resolve.
            root = {
                "$ref": f"#/components/schemas/{name}",
                "components": self.document["components"],
            }
            found = self._validators[name] = Draft202012Validator(root)
        return found

    def problems(self, name: str, value: Any) -> list[str]:
        errors = list(self.validator(name).iter_errors(value))
        if not errors:
            return []
        worst = best_match(errors)
        where = "/".join(str(part) for part in worst.absolute_path)
        return [f"{name} at /{where}: {worst.message[:300]}"]

    def check(self, name: str, value: Any) -> None:
        problems = self.problems(name, value)
        assert not problems, problems
