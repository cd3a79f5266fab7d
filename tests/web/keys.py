"""Keys pressed in Chromium as a keyboard sends them, for the browser tests and bench_queue.py."""

from __future__ import annotations


def access_key(page, letter: str) -> None:
    """Alt+letter as Chromium on Linux receives it from a keyboard: key down, the character, key up.
    (Playwright's keyboard.press sends no character event while Alt is held, and Chromium fires an access
    key on that event.)"""
    cdp = page.context.new_cdp_session(page)
    key = {
        "modifiers": 1,
        "key": letter,
        "code": f"Key{letter.upper()}",
        "windowsVirtualKeyCode": ord(letter.upper()),
    }
    cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **key})
    cdp.send(
        "Input.dispatchKeyEvent",
        {"type": "char", "modifiers": 1, "key": letter, "text": letter, "unmodifiedText": letter},
    )
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **key})
    cdp.detach()
