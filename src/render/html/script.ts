// The report's only script, inline and allowed by its hash (page.ts). It pages
// findings: a rule's list is redrawn from that rule's JSON block, with
// textContent only, so log text is never parsed as HTML. It also follows a
// link to a finding on another page (#finding-N), and opens every folded
// section before printing. Without it the report still shows each rule's first page.

export const PAGER_SCRIPT = String.raw`(function () {
  'use strict';
  var table = null;
  function lines() {
    if (table === null) table = JSON.parse(document.getElementById('rs-lines').textContent);
    return table;
  }
  function el(tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }
  // The same elements as findingCard in findings.ts.
  function card(item, number) {
    var t = lines();
    var a = el('article', 'finding');
    a.id = 'finding-' + number;
    var meta = el('div', 'meta');
    meta.append(el('span', 'num', '#' + number), ' ', el('time', '', item[0]), ' · session ', el('code', '', item[1] === null ? '(no session)' : item[1]));
    if (item[4] >= 0) {
      var link = el('a', '', 'timeline');
      link.setAttribute('href', '#timeline-' + item[4]);
      meta.append(' · ', link);
    }
    a.append(meta, el('p', 'msg', item[2]));
    if (item[3].length === 0) {
      a.append(el('p', 'note', '(no evidence lines recorded)'));
    } else {
      var ol = el('ol', 'evidence');
      item[3].forEach(function (i) {
        var l = t.lines[i];
        var li = el('li');
        li.append(el('span', 'where', t.files[l[0]] + ':' + l[1]));
        if (l[2] !== null) li.append(el('code', '', l[2]));
        ol.append(li);
      });
      a.append(ol);
    }
    return a;
  }
  var pagers = [];
  document.querySelectorAll('nav.pager').forEach(function (nav) {
    var key = nav.getAttribute('data-pager');
    var size = Number(nav.getAttribute('data-size'));
    var total = Number(nav.getAttribute('data-total'));
    var first = Number(nav.getAttribute('data-first'));
    var pages = Math.ceil(total / size);
    var list = document.getElementById('list-' + key);
    var where = nav.querySelector('.where');
    var input = nav.querySelector('input');
    var page = 1;
    var data = null;
    function update() {
      var from = (page - 1) * size;
      where.textContent = 'findings ' + (from + 1).toLocaleString('en-US') + '–' + Math.min(total, from + size).toLocaleString('en-US') + ' of ' + total.toLocaleString('en-US');
      input.value = String(page);
      nav.querySelectorAll('button').forEach(function (b) {
        var go = b.getAttribute('data-go');
        b.disabled = (go === 'first' || go === 'prev') ? page === 1 : page === pages;
      });
    }
    function show(p) {
      p = Math.max(1, Math.min(pages, Math.floor(Number(p)) || 1));
      if (data === null) data = JSON.parse(document.getElementById('data-' + key).textContent);
      var frag = document.createDocumentFragment();
      for (var i = (p - 1) * size; i < Math.min(total, p * size); i++) frag.append(card(data.items[i], data.first + i));
      list.replaceChildren(frag);
      page = p;
      update();
    }
    nav.addEventListener('click', function (e) {
      var b = e.target.closest('button[data-go]');
      if (!b) return;
      var go = b.getAttribute('data-go');
      show(go === 'first' ? 1 : go === 'prev' ? page - 1 : go === 'next' ? page + 1 : pages);
    });
    input.addEventListener('change', function () { show(input.value); });
    nav.hidden = false;
    update();
    pagers.push({ first: first, total: total, size: size, show: show, details: nav.closest('details') });
  });
  // A link to a finding drawn on another page: draw that page, then go there.
  function follow() {
    var m = /^#finding-(\d+)$/.exec(location.hash);
    if (!m || document.getElementById('finding-' + m[1])) return;
    var n = Number(m[1]);
    pagers.forEach(function (p) {
      if (n < p.first || n >= p.first + p.total) return;
      if (p.details) p.details.open = true;
      p.show(Math.floor((n - p.first) / p.size) + 1);
      var target = document.getElementById('finding-' + n);
      if (target) target.scrollIntoView();
    });
  }
  window.addEventListener('hashchange', follow);
  follow();
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });
})();
`;
