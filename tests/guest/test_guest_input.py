"""XTEST input reaches X clients: pointer, buttons, scroll, keys, Unicode text."""

from __future__ import annotations

from Xlib import XK, X

from desktop_gym.guest.client import GuestClient


def test_move_sets_pointer_position(guest: GuestClient, probe) -> None:
    guest.move(123, 45)
    pointer = probe.display.screen().root.query_pointer()
    assert (pointer.root_x, pointer.root_y) == (123, 45)


def test_click_delivers_press_and_release(guest: GuestClient, probe, wait_until) -> None:
    probe.clear()
    guest.click(40, 50, button="right", count=2)
    presses = wait_until(
        lambda: len(probe.of_type(X.ButtonPress)) >= 2 and probe.of_type(X.ButtonPress),
        what="two ButtonPress events",
    )
    assert [(e.detail, e.event_x, e.event_y) for e in presses] == [(3, 40, 50), (3, 40, 50)]
    wait_until(lambda: len(probe.of_type(X.ButtonRelease)) == 2, what="two ButtonRelease events")


def test_mouse_down_up_and_drag(guest: GuestClient, probe, wait_until) -> None:
    probe.clear()
    guest.mouse_down(10, 10)
    guest.mouse_up(20, 20)
    guest.drag(30, 30, 200, 100)
    wait_until(lambda: len(probe.of_type(X.ButtonRelease)) == 2, what="two ButtonRelease events")
    presses = [(e.event_x, e.event_y) for e in probe.of_type(X.ButtonPress)]
    releases = [(e.event_x, e.event_y) for e in probe.of_type(X.ButtonRelease)]
    assert presses == [(10, 10), (30, 30)] and releases == [(20, 20), (200, 100)]
    drag_motion = [e for e in probe.of_type(X.MotionNotify) if e.state & X.Button1Mask]
    assert len(drag_motion) >= 2  # intermediate motions with the button held


def test_scroll_uses_buttons_4_to_7(guest: GuestClient, probe, wait_until) -> None:
    probe.clear()
    guest.scroll(100, 100, dy=2)
    guest.scroll(dy=-1, dx=1)
    guest.scroll(dx=-1)
    wait_until(lambda: len(probe.of_type(X.ButtonPress)) == 5, what="five scroll button presses")
    assert [e.detail for e in probe.of_type(X.ButtonPress)] == [5, 5, 4, 7, 6]


def _typed_keysyms(probe) -> list[tuple[int, bool]]:
    """(keysym at level 0, shift held) for each KeyPress that is not a modifier."""
    modifiers = {probe.display.keysym_to_keycode(k) for k in (XK.XK_Shift_L, XK.XK_Control_L)}
    return [
        (probe.display.keycode_to_keysym(e.detail, 0), bool(e.state & X.ShiftMask))
        for e in probe.of_type(X.KeyPress)
        if e.detail not in modifiers
    ]


def test_press_and_hotkey_deliver_keys_with_modifiers(guest: GuestClient, probe, wait_until) -> None:
    probe.clear()
    guest.hotkey(["ctrl", "s"])
    guest.press("Enter", presses=2)
    guest.press("A")
    wait_until(lambda: len(_typed_keysyms(probe)) == 4, what="four key presses")
    presses = [e for e in probe.of_type(X.KeyPress)]
    ctrl_s = next(e for e in presses if probe.display.keycode_to_keysym(e.detail, 0) == XK.XK_s)
    assert ctrl_s.state & X.ControlMask
    assert _typed_keysyms(probe) == [
        (XK.XK_s, False),
        (XK.XK_Return, False),
        (XK.XK_Return, False),
        (XK.XK_a, True),
    ]


def test_key_down_holds_until_key_up(guest: GuestClient, probe, wait_until) -> None:
    probe.clear()
    guest.key_down("shift")
    guest.press("x")
    guest.key_up("shift")
    guest.press("x")
    wait_until(lambda: len(_typed_keysyms(probe)) == 2, what="two x presses")
    assert _typed_keysyms(probe) == [(XK.XK_x, True), (XK.XK_x, False)]


def test_type_text_unicode_in_terminal(guest: GuestClient, wait_until) -> None:
    guest.launch_app("terminal")
    text = "héllo → ✓ Ünïcode ß 日本"
    guest.type_text("cat > ~/typed.txt\n")
    # Text typed before cat runs would meet the shell's line editor (raw mode), not cat.
    wait_until(lambda: guest.get_file("~/typed.txt") == b"", what="the shell to start cat > ~/typed.txt")
    guest.type_text(f"{text}\n")
    guest.hotkey(["ctrl", "d"])
    wait_until(lambda: guest.get_file("~/typed.txt").decode() == text + "\n", what="cat to write the typed line")


def test_type_text_unicode_and_tab_in_editor(guest: GuestClient, wait_until) -> None:
    path = guest.put_file("~/notes.txt", b"")
    guest.launch_app("editor", file=path)
    text = 'Grüße → ✓\tΩmega 😀 (a+b)*2="x"'
    guest.type_text(text)
    guest.hotkey(["ctrl", "s"])
    content = wait_until(lambda: guest.get_file(path).decode(), what=f"{path} to be saved by mousepad")
    assert content.rstrip("\n") == text
