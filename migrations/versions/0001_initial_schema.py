"""Initial schema: tags, sources, claims, evidence, figures and the event history.

Seeds the four tags the user's notes use; further tags are data, added by import.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "source",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("url", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("publisher", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("date", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("cite_key", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('paper', 'report', 'blog', 'readme', 'note', 'code', 'docs', 'news', 'other')",
            name="ck_source_kind",
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("source", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_source_key"), ["key"], unique=True)

    op.create_table(
        "tag",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("trust", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("description", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.CheckConstraint("trust IN ('verified', 'secondary', 'unverified')", name="ck_tag_trust"),
        sa.PrimaryKeyConstraint("name"),
    )
    tag_table = sa.table(
        "tag",
        sa.column("name", sa.String),
        sa.column("trust", sa.String),
        sa.column("description", sa.String),
    )
    op.bulk_insert(
        tag_table,
        [
            {
                "name": "spot-checked",
                "trust": "verified",
                "description": "A person re-read the primary page and found the figure there.",
            },
            {
                "name": "note-2026-09-21",
                "trust": "secondary",
                "description": "Copied from the same-day companion notes of 21 September 2026.",
            },
            {
                "name": "prior-note",
                "trust": "secondary",
                "description": "Copied from an earlier workspace note.",
            },
            {
                "name": "agent-reported",
                "trust": "unverified",
                "description": "Reported by an AI research agent; nobody has re-read the source.",
            },
        ],
    )
    op.create_table(
        "claim",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("stage", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("statement", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tag", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("basis", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("section", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("status_reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("superseded_by", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.CheckConstraint(
            "status IN ('active', 'superseded', 'withdrawn')", name="ck_claim_status"
        ),
        sa.ForeignKeyConstraint(
            ["tag"],
            ["tag.name"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claim_key"), ["key"], unique=True)
        batch_op.create_index(batch_op.f("ix_claim_stage"), ["stage"], unique=False)
        batch_op.create_index(batch_op.f("ix_claim_subject"), ["subject"], unique=False)
        batch_op.create_index(batch_op.f("ix_claim_tag"), ["tag"], unique=False)

    op.create_table(
        "event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("tag_before", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("tag_after", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("origin", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("detail", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.CheckConstraint(
            "kind IN ('imported', 'updated', 'retagged', 'reread', 'status', 'verified')",
            name="ck_event_kind",
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claim.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_event_claim_id"), ["claim_id"], unique=False)

    op.create_table(
        "evidence",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("locator", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("quote", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claim.id"],
        ),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["source.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("claim_id", "position", name="uq_evidence_position"),
    )
    with op.batch_alter_table("evidence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_evidence_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_evidence_source_id"), ["source_id"], unique=False)

    op.create_table(
        "figure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("raw", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("comparator", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("low", sa.Float(), nullable=True),
        sa.Column("high", sa.Float(), nullable=True),
        sa.Column("start", sa.Float(), nullable=True),
        sa.Column("end", sa.Float(), nullable=True),
        sa.Column("steps", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("active", sa.Float(), nullable=True),
        sa.Column("unit", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("counted", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.CheckConstraint(
            "comparator IN ('=', '~', '<', '<=', '>', '>=', 'up to')", name="ck_figure_comparator"
        ),
        sa.CheckConstraint(
            "kind IN ('value', 'range', 'transition', 'ratio', 'moe', 'text')",
            name="ck_figure_kind",
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claim.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("claim_id", "position", name="uq_figure_position"),
    )
    with op.batch_alter_table("figure", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_figure_claim_id"), ["claim_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_figure_low"), ["low"], unique=False)
        batch_op.create_index(batch_op.f("ix_figure_value"), ["value"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("figure", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_figure_value"))
        batch_op.drop_index(batch_op.f("ix_figure_low"))
        batch_op.drop_index(batch_op.f("ix_figure_claim_id"))

    op.drop_table("figure")
    with op.batch_alter_table("evidence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evidence_source_id"))
        batch_op.drop_index(batch_op.f("ix_evidence_claim_id"))

    op.drop_table("evidence")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_event_claim_id"))

    op.drop_table("event")
    with op.batch_alter_table("claim", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_claim_tag"))
        batch_op.drop_index(batch_op.f("ix_claim_subject"))
        batch_op.drop_index(batch_op.f("ix_claim_stage"))
        batch_op.drop_index(batch_op.f("ix_claim_key"))

    op.drop_table("claim")
    op.drop_table("tag")
    with op.batch_alter_table("source", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_source_key"))

    op.drop_table("source")
