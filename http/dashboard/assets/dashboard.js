// The dashboard's one script (no library): confirmations of destructive
// actions, and a running workflow followed live over its event stream
// (spec A's events, through /dashboard/workflows/{id}/events). Pages work
// without it; it only ever sets text, never HTML.
(function () {
  'use strict';

  // A form or a button with data-confirm asks first.
  document.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-confirm]');
    if (b && !window.confirm(b.getAttribute('data-confirm'))) {
      e.preventDefault();
    }
  });
  document.addEventListener('submit', function (e) {
    var f = e.target;
    if (f.hasAttribute('data-confirm') && !window.confirm(f.getAttribute('data-confirm'))) {
      e.preventDefault();
    }
  });

  var live = document.getElementById('live');
  if (!live || !window.EventSource) {
    return;
  }
  var log = document.getElementById('live-log');
  var state = document.getElementById('live-status');
  var bar = document.getElementById('live-progress');
  var steps = document.getElementById('wf-steps');
  var interactive = live.hasAttribute('data-interactive');
  var running = ['queued', 'executing', 'step_executing', 'resuming', 'quality_review', 'approved'];
  var done = {};
  var doneCount = Number(live.getAttribute('data-done')) || 0;
  var source = new EventSource(live.getAttribute('data-events'));

  function read(e) {
    try { return JSON.parse(e.data) || {}; } catch (_) { return {}; }
  }
  function say(text, kind) {
    var li = document.createElement('li');
    li.textContent = text;
    if (kind) { li.className = kind; }
    log.appendChild(li);
    state.textContent = text;
  }
  // finish: the run reached a state the page shows in full; reload it.
  function finish(text) {
    source.close();
    live.setAttribute('aria-busy', 'false');
    say(text, 'end');
    window.setTimeout(function () { window.location.reload(); }, 800);
  }
  function on(name, f) {
    source.addEventListener(name, function (e) { f(read(e)); });
  }

  on('workflow_started', function () { say('The run started.'); });
  on('step_started', function (d) { say('Step ' + d.step + ': ' + d.name + ' is running…', 'running'); });
  on('step_completed', function (d) {
    done[d.step] = true;
    bar.value = Math.max(doneCount, Object.keys(done).length);
    if (steps) { steps.textContent = bar.value + ' of ' + bar.max + ' done'; }
    say('Step ' + d.step + ': ' + d.name + ' is done (' + d.credits + ' credits).', 'done');
    if (interactive) { finish('The step is done.'); }
  });
  on('step_skipped', function (d) { say('Step ' + d.step + ': ' + d.name + ' has no result (' + (d.reason || 'skipped') + ').', 'skipped'); });
  on('terminal_step_retrying', function (d) { say(d.message || 'The final step is retried.'); });
  on('execution_fallback', function () { say('The run continues as standard execution.'); });
  on('quality_review', function (d) { say('Quality review: ' + (d.score === null ? 'no score' : d.score + ' / 100') + '.'); });
  on('processing', function (d) {
    if (d.status && running.indexOf(d.status) < 0) {
      finish('The workflow is now ' + d.status.replace(/_/g, ' ') + '.');
    }
  });
  on('workflow_completed', function () { finish('The workflow is complete.'); });
  on('workflow_pending_approval', function () { finish('The workflow waits for approval.'); });
  on('workflow_error', function (d) { finish('The workflow stopped: ' + (d.error || d.code || 'an error') + '.'); });
  on('stream_timeout', function () { source.close(); window.location.reload(); });
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) {
      live.setAttribute('aria-busy', 'false');
      state.textContent = 'Live updates stopped. Reload the page to see where the workflow stands.';
    }
  };
}());
