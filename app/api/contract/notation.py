"""The wire's names for cards and tiles, as JSON Schema patterns, and the base of every model."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class Wire(BaseModel):
    """A published message part: its schema lists every field and allows no other."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Card = Annotated[
    str,
    Field(
        pattern=r"^[HSDC](1[0-3]|[1-9])$",
        description="A card: suit H, S, D or C, then rank 1 (ace) to 13 (king), e.g. H1, S12",
    ),
]
Tile = Annotated[
    str,
    Field(
        pattern=r"^([RBKY](1[0-3]|[1-9])[ab]|J[12])$",
        description="A physical tile: colour R, B, K or Y, number 1-13 and copy a or b "
        "(R5a), or a joker J1, J2",
    ),
]
Face = Annotated[
    str,
    Field(
        pattern=r"^[RBKY](1[0-3]|[1-9])$",
        description="What a tile shows, without its copy letter, e.g. R5",
    ),
]
Joker = Annotated[str, Field(pattern=r"^J[12]$", description="A joker: J1 or J2")]
SeatNumber = Annotated[int, Field(ge=0, le=3)]
