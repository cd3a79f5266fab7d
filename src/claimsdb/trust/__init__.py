"""Who may vouch for a figure, and what a reader of the paper can rely on.

**What a reader can rely on.** A figure in an export, a macro or a linted manuscript passed the one
paper-safe rule (`trust.rule.Policy.blockers`, which every door asks: export, lint and the pre-commit hook,
the LaTeX macros, the web view and its queue, MCP, `verify --unverified`, `db check`): its claim is
active, agrees with its hash-chained history, has a tag of passing trust, and, if that trust is verified,
stands on a person's re-read that still covers its content, made on the page's own words (the quote and the
claim's figures found on the page, or a stated attestation that the strict policy refuses). Once the
store requires signatures (`claims people require-signatures`), that re-read also carries the signature of
the person it names, made with a key registered to them (`trust.signatures`, `trust.people`), and the
export's manifest names the keys that vouched.

**Against whom.**
- An AI agent that adds claims over MCP or a JSON Lines channel (`trust.channels`): it records only
  unverified claims, never a tag above that, a re-read, a definition or a rank (`trust.agents` names it).
- An agent, script or colleague that runs `claims` as the author: without signatures it can type any
  reader's name (`trust.identity` only checks that a name shows and does not read as a reserved name or,
  `trust.people`, as a registered person's spelt otherwise); with signatures required it cannot vouch
  unless it can use a registered key, which a security key (a touch), a passphrase asked in a dialog or
  `ssh-add -c` prevents. The MCP server and the agent channels never sign.
- Whoever can write the database file or owns the PostgreSQL tables (an agent running as the author can):
  an event or a registry row appended with correct hashes but no valid signature vouches for nothing, and
  `db check` names it; an edited registry fails closed; a cut history or registry is caught by an anchor
  kept outside the database (claimsdb.anchor, claimsdb.integrity). On PostgreSQL a writer role may insert
  but not rewrite history, anchors or the registry, nor record an anchor the chain does not hold
  (`trust.roles`).

**What it does not cover.** Someone who holds an unlocked registered key (it signs for them); a person who
signs without reading well; re-reads made before signatures were required (`claims people unsigned` lists
them); a store rewritten before its first anchor, or events after the last one; the definitions of
tags, sources, quantities and aliases, which have a chain of their own but no signature (a data file
read from a path may still define a tag of secondary trust); and the claimsdb installation itself: a process that can rewrite the
tool can make it say anything.

Modules: `identity` (what a person's name may be; the reader and the signing key set on this machine),
`confusables` (a name's Unicode skeleton: names that read alike),
`channels` (each way in and what it may vouch for), `agents` (the software agent an MCP client is),
`rule` (the paper-safe rule and the re-read every door points to), `people` (the registry), `signatures`
(whether a re-read is signed by its person), `sshsig` (SSH signatures, checked in process), `passkeys`
(WebAuthn), `keys` (the key a person signs with), `roles` (PostgreSQL roles).
"""
