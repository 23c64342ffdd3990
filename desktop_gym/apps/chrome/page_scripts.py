"""JavaScript run in pages by ``ChromeTools``: finding an element by CSS selector or accessible name,
typing into it, reading text. Each is a function source; arguments reach it as JSON data."""

# ruff: noqa: E501 - JavaScript sources, kept as written

from __future__ import annotations

#: ``find(selector, name)`` -> the element, or throws "no element ..." / "N elements ...".
FIND = r"""
function find(selector, name) {
  if (selector) {
    let el;
    try { el = document.querySelector(selector); } catch (e) { throw new Error('invalid CSS selector ' + JSON.stringify(selector)); }
    if (!el) throw new Error('no element matches the CSS selector ' + JSON.stringify(selector));
    return el;
  }
  if (!name) throw new Error('give a CSS selector or an accessible name');
  const wanted = name.trim().toLowerCase();
  const kinds = 'a,button,input,select,textarea,summary,label,[role],[aria-label],[tabindex],h1,h2,h3,option';
  const names = el => {
    const out = [el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('placeholder'),
                 el.getAttribute('name'), el.id, el.getAttribute('alt')];
    if (el.labels) for (const label of el.labels) out.push(label.innerText);
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) out.push(el.value);
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) out.push(el.innerText);
    return out.filter(Boolean).map(t => t.trim().toLowerCase());
  };
  const all = Array.from(document.querySelectorAll(kinds));
  let hits = all.filter(el => names(el).includes(wanted));
  if (!hits.length) hits = all.filter(el => names(el).some(t => t.includes(wanted)));
  if (!hits.length) throw new Error('no element is named ' + JSON.stringify(name));
  const labelFor = hits.find(el => el.tagName === 'LABEL' && el.control);
  if (labelFor && hits.length > 1) hits = hits.filter(el => el !== labelFor);
  return hits[0];
}
"""


def _function(params: str, *parts: str) -> str:
    """An arrow function ``(params) => { parts }``: helper functions first, then the body."""
    return f"({params}) => {{\n" + "\n".join(parts) + "\n}"


#: ``setValue(el, value)``: sets a field the way typing does (input and change events).
_SET_VALUE_FN = r"""
function setValue(el, value) {
  const tag = el.tagName;
  if (tag === 'SELECT') {
    const option = Array.from(el.options).find(o => o.value === value || o.text.trim() === value);
    if (!option) throw new Error('the list has no option ' + JSON.stringify(value) + ' (options: ' + Array.from(el.options).map(o => o.text.trim()).join(', ') + ')');
    el.value = option.value;
  } else if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) {
    const on = !['', 'false', '0', 'off', 'no'].includes(String(value).toLowerCase());
    if (el.checked !== on) el.click();
    return;
  } else if (tag === 'INPUT' || tag === 'TEXTAREA') {
    const proto = tag === 'INPUT' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
  } else if (el.isContentEditable) {
    el.innerText = value;
  } else {
    throw new Error('the element ' + tag.toLowerCase() + ' is not a text field');
  }
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}
"""

#: ``(selector, name)`` -> clicks the element; returns what it was.
CLICK = _function(
    "selector, name",
    FIND,
    r"""
  const el = find(selector, name);
  el.scrollIntoView({block: 'center'});
  if (el.focus) el.focus();
  el.click();
  return (el.tagName.toLowerCase() + ' ' + (el.innerText || el.value || el.getAttribute('aria-label') || '')).trim().slice(0, 120);
""",
)

#: ``(selector, name, value)`` -> sets the field found by selector or name; returns its name.
SET_VALUE = _function(
    "selector, name, value",
    FIND,
    _SET_VALUE_FN,
    r"""
  let el = find(selector, name);
  if (el.tagName === 'LABEL' && el.control) el = el.control;
  if (el.focus) el.focus();
  setValue(el, value);
  return el.name || el.id || el.tagName.toLowerCase();
""",
)

#: ``(fields, submit)`` -> fills a form: each key a field's name, id, label or CSS selector.
FILL_FORM = _function(
    "fields, submit",
    FIND,
    _SET_VALUE_FN,
    r"""
  const filled = [];
  let form = null;
  for (const [key, value] of Object.entries(fields)) {
    let el = document.querySelector('[name="' + CSS.escape(key) + '"]') || document.getElementById(key);
    if (!el) { try { el = document.querySelector(key); } catch (e) { el = null; } }
    if (!el) el = find('', key);
    if (el.tagName === 'LABEL' && el.control) el = el.control;
    setValue(el, String(value));
    form = form || el.form;
    filled.push(el.name || el.id);
  }
  if (submit) {
    if (!form) throw new Error('the fields are not in a form');
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }
  return filled;
""",
)

#: ``(selector)`` -> submits the form matched (or the form holding the focused element).
SUBMIT = r"""
(selector) => {
  let form = selector ? document.querySelector(selector) : (document.activeElement && document.activeElement.form) || document.forms[0];
  if (form && form.tagName !== 'FORM') form = form.form || form.closest('form');
  if (!form) throw new Error(selector ? 'no form matches ' + JSON.stringify(selector) : 'the page has no form');
  if (form.requestSubmit) form.requestSubmit(); else form.submit();
  return form.getAttribute('action') || location.pathname;
}
"""

#: ``(max_chars)`` -> the page's visible text.
PAGE_TEXT = r"""(maxChars) => (document.body ? document.body.innerText : '').slice(0, maxChars)"""

#: ``(text)`` -> how often ``text`` occurs in the visible text (case-insensitive); highlights the first.
FIND_TEXT = r"""
(text) => {
  const body = (document.body ? document.body.innerText : '').toLowerCase();
  const wanted = text.toLowerCase();
  let count = 0, at = body.indexOf(wanted);
  while (at !== -1 && count < 10000) { count++; at = body.indexOf(wanted, at + Math.max(1, wanted.length)); }
  if (count && window.find) { window.getSelection().removeAllRanges(); window.find(text, false, false, true); }
  return count;
}
"""

#: ``(max_links)`` -> the page's links as ``[text, href]``.
LINKS = r"""
(maxLinks) => Array.from(document.querySelectorAll('a[href]')).slice(0, maxLinks)
  .map(a => [(a.innerText || a.getAttribute('aria-label') || '').trim().slice(0, 200), a.href])
"""

#: ``(selector)`` -> the rows of a table: a list of lists of cell texts.
TABLE = r"""
(selector) => {
  const table = document.querySelector(selector || 'table');
  if (!table) throw new Error('no table matches ' + JSON.stringify(selector || 'table'));
  return Array.from(table.rows).slice(0, 1000).map(r => Array.from(r.cells).slice(0, 100).map(c => c.innerText.trim()));
}
"""
