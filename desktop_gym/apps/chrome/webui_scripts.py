"""JavaScript run on Chromium's own pages by ``ChromeTools``: ``chrome://bookmarks`` (``chrome.bookmarks``),
``chrome://settings`` (``chrome.settingsPrivate`` and its ``chrome.send`` handlers), ``chrome://history``
(the page's list). Each is a function source; arguments reach it as JSON data."""

# ruff: noqa: E501 - JavaScript sources, kept as written

from __future__ import annotations

#: ``()`` -> every bookmark as ``{folder, title, url}``.
BOOKMARK_LIST = """() => new Promise(resolve => chrome.bookmarks.getTree(tree => {
          const out = [];
          const walk = (node, path) => {
            for (const child of node.children || []) {
              if (child.url) out.push({folder: path, title: child.title, url: child.url});
              else walk(child, path ? path + '/' + child.title : child.title);
            }
          };
          walk(tree[0], '');
          resolve(out);
        }))"""

#: ``(path)`` -> the id of the bookmark folder at ``path`` (``Bookmarks bar/Work``).
FOLDER_ID = """(path) => new Promise((resolve, reject) => chrome.bookmarks.getTree(tree => {
          const parts = path.split('/').map(p => p.trim()).filter(Boolean);
          let node = tree[0];
          for (const part of parts) {
            const next = (node.children || []).find(c => !c.url && c.title.toLowerCase() === part.toLowerCase());
            if (!next) { reject(new Error('no bookmark folder ' + JSON.stringify(part) + ' in ' + JSON.stringify(node.title || 'the bookmarks'))); return; }
            node = next;
          }
          resolve(node.id);
        }))"""

#: ``(path, url, title)`` -> adds a bookmark in the folder; its title.
ADD_BOOKMARK = (
    "(path, url, title) => ("
    + FOLDER_ID
    + """)(path).then(parentId =>
  new Promise(resolve => chrome.bookmarks.create({parentId, title, url}, node => resolve(node.title))))"""
)

#: ``(path, title)`` -> adds a folder in the folder; its title.
ADD_FOLDER = (
    "(path, title) => ("
    + FOLDER_ID
    + """)(path).then(parentId =>
  new Promise(resolve => chrome.bookmarks.create({parentId, title}, node => resolve(node.title))))"""
)

#: ``(query)`` -> removes the bookmarks ``chrome.bookmarks.search`` finds; how many.
REMOVE_BOOKMARKS = """(query) => new Promise(resolve => chrome.bookmarks.search(query, nodes => {
          const marks = nodes.filter(n => n.url);
          let left = marks.length;
          if (!left) resolve(0);
          for (const n of marks) chrome.bookmarks.remove(n.id, () => { if (--left === 0) resolve(marks.length); });
        }))"""

#: ``()`` -> the history page's entries as ``{title, url}``, newest first (as far as the list shows them).
HISTORY_ITEMS = """() => {
  const app = document.querySelector('history-app');
  const list = app && app.shadowRoot && app.shadowRoot.querySelector('history-list');
  const items = list && list.shadowRoot ? Array.from(list.shadowRoot.querySelectorAll('history-item')) : [];
  return items.filter(i => i.item).map(i => ({title: i.item.title, url: i.item.url}));
}"""

#: ``(key, value)`` -> sets a preference the way the settings page does.
SET_PREF = """(key, value) => new Promise((resolve, reject) =>
          chrome.settingsPrivate.setPref(key, value, '', ok => ok ? resolve(true) : reject(new Error('Chromium refused the value ' + JSON.stringify(value) + ' for ' + key))))"""

#: ``(prefs)`` -> ``{name: value}`` for ``{name: key}``, plus ``default_zoom`` in percent.
GET_PREFS = """(prefs) => new Promise(resolve => chrome.settingsPrivate.getAllPrefs(all => {
          const byKey = Object.fromEntries(all.map(p => [p.key, p.value]));
          const out = {};
          for (const [name, key] of Object.entries(prefs)) out[name] = byKey[key] === undefined ? null : byKey[key];
          chrome.settingsPrivate.getDefaultZoom(zoom => { out.default_zoom = Math.round(zoom * 100); resolve(out); });
        }))"""

#: ``(factor)`` -> sets the default page zoom.
SET_ZOOM = "(factor) => new Promise(resolve => { chrome.settingsPrivate.setDefaultZoom(factor, () => resolve(true)); })"

#: ``(action, index)`` -> the search engines list (``action`` "set": after making ``index`` the default).
SEARCH_ENGINES = """(action, index) => new Promise((resolve, reject) => {
      const original = window.cr.webUIResponse;
      window.cr.webUIResponse = (id, ok, response) => {
        if (id !== 'gym-engines') return original(id, ok, response);
        window.cr.webUIResponse = original;
        resolve(response);
      };
      if (action === 'set') { chrome.send('setDefaultSearchEngine', [index, 0]); setTimeout(() => chrome.send('getSearchEnginesList', ['gym-engines']), 50); }
      else chrome.send('getSearchEnginesList', ['gym-engines']);
    })"""
