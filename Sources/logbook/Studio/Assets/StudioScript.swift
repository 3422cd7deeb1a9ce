/// The studio's one script, served as `/assets/studio.js`. Progressive enhancement only: every
/// view reads and navigates without it. It
/// - drops `?token=` from the address bar once the cookie holds it;
/// - follows `n`/`p` (next/previous page) and `/` (the filter) on the keyboard;
/// - sends write forms with the token in the `X-Logbook-Token` header (writes need it);
/// - follows `/events` (Server-Sent Events) and reloads the page's main part after a save,
///   unless the reader is typing in it (then it offers a button).
/// It inserts no markup of its own making from data: new content comes from the server's own
/// escaped pages, through `DOMParser` (which runs no script), and messages go in as text.
enum StudioScript {
    static let source = #"""
        (function () {
          'use strict';
          var body = document.body;
          document.documentElement.classList.add('js');
          var statusBox = document.getElementById('live-status');

          function say(text, isError) {
            if (!statusBox) { return; }
            statusBox.textContent = text;
            statusBox.className = 'live-status' + (isError ? ' error' : ' shown');
          }

          // The token lives in the cookie from now on: keep it out of history and bookmarks.
          if (location.search.indexOf('token=') >= 0 && window.history && history.replaceState) {
            var clean = new URL(location.href);
            clean.searchParams.delete('token');
            history.replaceState(null, '', clean.pathname + clean.search + clean.hash);
          }

          function typing(target) {
            return target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' ||
              target.tagName === 'SELECT' || target.isContentEditable);
          }

          document.addEventListener('keydown', function (event) {
            if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
            if (event.key === 'n' || event.key === 'p') {
              var link = document.querySelector('a[rel="' + (event.key === 'n' ? 'next' : 'prev') + '"]');
              if (link) { event.preventDefault(); location.href = link.href; }
            } else if (event.key === '/') {
              var filter = document.getElementById('where');
              if (filter) { event.preventDefault(); filter.focus(); filter.select(); }
            }
          });

          var writeToken = document.querySelector('meta[name="logbook-write-token"]');
          document.addEventListener('submit', function (event) {
            var form = event.target;
            if (!form.classList || !form.classList.contains('write')) { return; }
            event.preventDefault();
            if (!writeToken) { say('This studio is read-only.', true); return; }
            var question = form.getAttribute('data-confirm');
            if (question && !window.confirm(question)) { return; }
            var data = new URLSearchParams(new FormData(form));
            say('Saving…');
            fetch(form.action, {
              method: 'POST',
              credentials: 'same-origin',
              headers: {
                'X-Logbook-Token': writeToken.getAttribute('content'),
                'Content-Type': 'application/x-www-form-urlencoded',
                'Accept': 'text/plain'
              },
              body: data.toString()
            }).then(function (response) {
              if (response.ok) { location.href = response.url; return; }
              return response.text().then(function (text) { say(text, true); });
            }).catch(function (error) { say('The request failed: ' + error, true); });
          });

          var busy = false;
          var waiting = null;

          function reload(info) {
            if (busy) { return; }
            var active = document.activeElement;
            var main = document.getElementById('main');
            if (typing(active) && main && main.contains(active)) {
              offer(info);
              return;
            }
            busy = true;
            fetch(location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
              .then(function (response) { return response.text(); })
              .then(function (html) {
                var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('main');
                var current = document.getElementById('main');
                if (fresh && current) { current.replaceWith(document.importNode(fresh, true)); }
                say(describe(info));
              })
              .catch(function () { say('The store changed; reload the page to see it.', true); })
              .then(function () { busy = false; });
          }

          function offer(info) {
            if (!statusBox) { return; }
            statusBox.textContent = describe(info) + ' ';
            statusBox.className = 'live-status shown';
            var button = document.createElement('button');
            button.type = 'button';
            button.textContent = 'Show it';
            button.addEventListener('click', function () { reload(info); });
            statusBox.appendChild(button);
          }

          function describe(info) {
            if (!info || !info.saves) { return 'The store changed: shown as it is now.'; }
            return 'Updated after save ' + info.sequence + ' (' + info.inserted + ' inserted, ' +
              info.updated + ' updated, ' + info.deleted + ' deleted).';
          }

          if (window.EventSource && body.getAttribute('data-live') === '1') {
            var source = new EventSource('/events?seen=' +
              encodeURIComponent(body.getAttribute('data-sequence') || ''));
            source.addEventListener('save', function (event) {
              var info = null;
              try { info = JSON.parse(event.data); } catch (ignored) { info = null; }
              if (waiting) { clearTimeout(waiting); }
              waiting = setTimeout(function () { waiting = null; reload(info); }, 200);
            });
          }
        })();
        """#
}
