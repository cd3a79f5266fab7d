"""Who may vouch for a figure, and how a reader of the paper can tell.

Signatures: `sshsig` verifies SSH signatures (the SSHSIG format `ssh-keygen -Y sign` writes) in process
and signs through ssh-keygen; `people` is the registry of the people who may vouch and their keys;
`signatures` is the rule that decides whether a re-read's signature vouches.
"""
