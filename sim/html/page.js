/*
 * platter-sim --html: animate the record (the JSON above this script).
 * Times are integer nanoseconds of virtual time, as in the record; the
 * page only interpolates between the instants the record gives:
 *  - a command's parts are laid out from its submit in --explain's order,
 *    as --timeline draws them;
 *  - the arm reaches a command's cylinder at the end of its seek (start +
 *    overhead + seek) and a write-back's when the write-back ends (the
 *    record gives only its end: its move is drawn over at most the
 *    revolution before, from where the arm last arrived);
 *  - the platter's angle is a pure function of the time and the rpm, the
 *    model's own (hwm_device_angle_mdeg), computed exactly with BigInt.
 * window.platter exposes seek(), playTo(), state() and labels() for the
 * browser test (sim/tests/test-html-browser.py), which checks state()
 * against the record at the same instant and that no two labels drawn
 * on a canvas overlap or leave it.
 */
'use strict';
(function () {
  var R = JSON.parse(document.getElementById('platter-record').textContent);
  var PARTS = [
    ['queue', 'queue', '#b3b3b3'], ['overhead', 'overhead', '#8da0cb'],
    ['seek', 'seek', '#e78ac3'], ['rotate', 'rotation', '#fc8d62'],
    ['transfer', 'transfer', '#66c2a5'],
    ['destage', 'write-back wait', '#ffd92f']];
  var PHASE_REV = 60000000000n;

  function rows(list, cols) {
    return list.map(function (a) {
      var o = {};
      cols.forEach(function (c, i) { o[c] = a[i]; });
      return o;
    });
  }
  var cmds = rows(R.cmds, R.cmd_cols);
  var wbs = rows(R.wb, R.wb_cols);
  /* [submit, done] of the other commands in the drive beside the window's */
  var others = R.others || [];
  var rotating = R.rpm > 0;
  var t0 = Infinity, t1 = 0;
  cmds.forEach(function (c) {
    t0 = Math.min(t0, c.submit);
    t1 = Math.max(t1, c.done);
    c.media = rotating && (c.op === 'READ' || c.op === 'WRITE') && !c.hit &&
              (c.seek > 0 || c.rotate > 0);
    /* acknowledged from the write cache, volatile or protected: its home
     * write is owed (the record's own flag) */
    c.cached = c.op === 'WRITE' && !!c.cached;
    /* the end of its wait in the queue, where its bar turns from grey */
    c.served = c.submit + c.queue;
  });

  /* ---- the arm: where it arrives, in time order ----------------------- */
  var arrivals = [];
  cmds.forEach(function (c) {
    if (c.media) {
      var from = c.served + c.overhead, at = from + c.seek;
      arrivals.push({ from: from, at: at, end: at + c.rotate + c.transfer,
                      cyl: c.cyl, head: c.head, angle: c.angle,
                      what: 'command #' + c.n });
    }
  });
  /* a flush that writes home data acknowledged as durable (a protected
   * buffer's FUA writes) has no write-back in the record: its media work
   * is taken to be for the first such write since the flush before it */
  var owed = null;
  cmds.slice().sort(function (a, b) { return a.done - b.done; })
    .forEach(function (c) {
      if (c.op === 'WRITE' && c.durable && !c.media && !owed) { owed = c; }
      if (c.op !== 'FLUSH') { return; }
      var home = wbs.some(function (w) {
        return w.time > c.submit && w.time <= c.done;
      });
      if (rotating && owed && !home && c.rotate + c.transfer > 0) {
        var from = c.served + c.overhead, at = from + c.seek;
        arrivals.push({ from: from, at: at, end: c.done, cyl: owed.cyl,
                        head: owed.head, angle: owed.angle,
                        what: 'write-back of #' + owed.n });
      }
      owed = null;
    });
  wbs.forEach(function (w) {
    if (rotating) {
      arrivals.push({ from: w.time - R.rev_ns, at: w.time, end: w.time,
                      cyl: w.cyl, head: w.head, angle: w.angle,
                      what: 'a write-back' });
    }
  });
  arrivals.sort(function (a, b) { return a.at - b.at; });
  /* a new device's arm rests at cylinder 0; a later window starts where
   * the first arrival is */
  var armStart = R.from_ns === 0 || !arrivals.length ? 0 : arrivals[0].cyl;
  arrivals.forEach(function (a, i) {
    var prev = i ? arrivals[i - 1].at : -Infinity;
    a.from = Math.min(a.at, Math.max(a.from, prev));
  });

  function armAt(t) {
    var lo = 0, hi = arrivals.length;   /* first arrival with at > t */
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (arrivals[mid].at <= t) { lo = mid + 1; } else { hi = mid; }
    }
    var prevCyl = lo ? arrivals[lo - 1].cyl : armStart;
    var head = lo ? arrivals[lo - 1].head : 0;
    var next = arrivals[lo];
    /* at the instant it arrives the arm rests there, even when the next
     * move starts at once (a flush's write-backs one after another) */
    if (next && t > next.from && next.at > next.from) {
      var f = (t - next.from) / (next.at - next.from);
      return { cyl: prevCyl + (next.cyl - prevCyl) * f, moving: true,
               head: next.head, to: next };
    }
    return { cyl: prevCyl, moving: false, head: head, to: null };
  }

  /* the media access in progress at t: the sector it waits for */
  function accessAt(t) {
    for (var i = 0; i < arrivals.length; i++) {
      var a = arrivals[i];
      if (a.from <= t && t < Math.max(a.end, a.at + 1)) { return a; }
      if (a.from > t) { break; }
    }
    return null;
  }

  function angleMdeg(t) {
    if (!rotating) { return 0; }
    var p = (BigInt(Math.floor(t)) * BigInt(R.rpm)) % PHASE_REV;
    return Number(p * 360000n / PHASE_REV);
  }

  /* ---- commands at an instant ----------------------------------------- */
  function phaseOf(c, t) {
    var at = c.submit;
    for (var i = 0; i < PARTS.length; i++) {
      at += c[PARTS[i][0]];
      if (t < at) { return PARTS[i][1]; }
    }
    return 'done';
  }
  /* in flight at t: submitted, not done; the one served is the latest to
   * leave the queue (the lowest number among equals), else the lowest
   * waiting */
  function inFlight(t) {
    var list = [], serving = null;
    for (var i = 0; i < cmds.length; i++) {
      var c = cmds[i];
      if (c.submit <= t && t < c.done) {
        list.push(c);
        if (c.served <= t && (!serving || c.served > serving.served ||
                              (c.served === serving.served &&
                               c.n < serving.n))) {
          serving = c;
        }
      }
    }
    if (!serving && list.length) {
      serving = list.reduce(function (a, b) { return a.n < b.n ? a : b; });
    }
    var more = 0;
    others.forEach(function (o) { if (o[0] <= t && t < o[1]) { more++; } });
    return { list: list, serving: serving, others: more };
  }
  /* when each cached write left the cache: the first write-back after it
   * that covers its first byte (a write-back may carry several writes) */
  (function homes() {
    var byTime = wbs.slice().sort(function (a, b) { return a.time - b.time; });
    cmds.forEach(function (c) {
      c.home = Infinity;
      if (!c.cached) { return; }
      for (var i = 0; i < byTime.length; i++) {
        var w = byTime[i];
        if (w.time >= c.done && w.offset <= c.offset &&
            c.offset < w.offset + w.length) {
          c.home = w.time;
          return;
        }
      }
    });
  })();
  function dirtyAt(t) {
    var bytes = 0, extents = [];
    cmds.forEach(function (c) {
      if (c.cached && c.done <= t && t < c.home) {
        bytes += c.length;
        extents.push(c);
      }
    });
    return { bytes: bytes, extents: extents };
  }

  /* ---- text ------------------------------------------------------------ */
  function fixed(v, unit, dec) {
    return (v / unit).toFixed(dec);
  }
  function dur(ns) {
    if (ns < 1000) { return ns + ' ns'; }
    if (ns < 999950) { return fixed(ns, 1e3, 1) + ' us'; }
    if (ns < 999995000) { return fixed(ns, 1e6, 2) + ' ms'; }
    return fixed(ns, 1e9, 3) + ' s';
  }
  function opName(c) { return c.op === 'WRITE' && c.fua ? 'W+FUA' : c.op; }
  function place(c) {
    var lba = Math.floor(c.offset / 512);
    if (c.op === 'FLUSH') { return 'no data: it writes the cache home'; }
    var s = 'byte ' + c.offset + '+' + c.length + ' = LBA ' + lba + '+' +
            (c.length / 512);
    if (rotating) {
      s += ', C/H/S ' + c.cyl + '/' + c.head + '/' + c.sector +
           ' (of ' + c.spt + ' on the track, at ' +
           (c.angle / 1000).toFixed(1) + '\u00b0)';
    } else if (c.op === 'READ') {
      s += ', die ' + c.unit;
    }
    return s;
  }
  function explainRow(c) {
    var lines = ['#' + c.n + ' ' + opName(c) + '  ' + place(c),
                 'submit ' + dur(c.submit) + '  done ' + dur(c.done) +
                 '  total ' + dur(c.done - c.submit) +
                 (c.hit ? ' (cache hit)' : c.op !== 'WRITE' ? '' :
                  c.durable ? ' (durable)' : ' (cached)')];
    var parts = PARTS.map(function (p) { return p[1] + ' ' + dur(c[p[0]]); });
    lines.push(parts.slice(0, 3).join('  '));
    lines.push(parts.slice(3).join('  ') +
               (c.misses ? '  write misses ' + c.misses : ''));
    return lines.join('\n');
  }

  /* Every label a canvas drew in the last render: its box (the text's
   * measured width, the font's size above the baseline and a fifth of it
   * below), so that the test can see what a reader sees. */
  var labels = [];
  function labelled(id) {
    var g = document.getElementById(id).getContext('2d');
    var fill = g.fillText.bind(g);
    g.fillText = function (text, x, y) {
      var size = parseFloat(g.font) || 10;
      labels.push({ canvas: id, text: String(text), x0: x,
                    x1: x + g.measureText(text).width, y0: y - size,
                    y1: y + size / 5, w: g.canvas.width, h: g.canvas.height });
      fill(text, x, y);
    };
    return g;
  }

  /* ---- the drive ------------------------------------------------------ */
  var drive = labelled('drive');
  var CX = 220, CY = 236, R_OUT = 190, R_IN = 62;
  function radius(cyl) {
    var n = Math.max(1, R.cylinders - 1);
    return R_OUT - (R_OUT - R_IN) * cyl / n;
  }
  function polar(r, mdeg) {   /* screen point; 0 = under the head (top) */
    var a = (mdeg / 1000 - 90) * Math.PI / 180;
    return [CX + r * Math.cos(a), CY + r * Math.sin(a)];
  }
  function drawPlatter(t, s) {
    var g = drive, ang = s.angle_mdeg;
    g.clearRect(0, 0, 440, 456);
    /* zone bands, outermost first; shade grows with sectors per track */
    var maxSpt = Math.max.apply(null, R.zones.map(function (z) { return z[1]; }));
    for (var i = 0; i < R.zones.length; i++) {
      var r = radius(R.zones[i][0]);
      /* alternate a little too, so neighbouring bands stay apart */
      var light = 94 - 22 * R.zones[i][1] / maxSpt + (i % 2 ? 4 : 0);
      g.beginPath();
      g.arc(CX, CY, r, 0, 2 * Math.PI);
      g.fillStyle = 'hsl(210,35%,' + light.toFixed(1) + '%)';
      g.fill();
    }
    g.beginPath();
    g.arc(CX, CY, R_IN - 6, 0, 2 * Math.PI);
    g.fillStyle = '#fff';
    g.fill();
    g.strokeStyle = '#777';
    g.stroke();
    /* the index mark and spokes turn with the platter */
    for (var k = 0; k < 12; k++) {
      var a = k * 30000 - ang, p0 = polar(R_IN - 6, a), p1 = polar(R_OUT, a);
      g.beginPath();
      g.moveTo(p0[0], p0[1]);
      g.lineTo(p1[0], p1[1]);
      g.strokeStyle = k === 0 ? '#1f78b4' : 'rgba(0,0,0,0.08)';
      g.lineWidth = k === 0 ? 2 : 1;
      g.stroke();
    }
    g.lineWidth = 1;
    /* the sector the access in progress needs, turning towards the head */
    if (s.target) {
      var tr = radius(s.target.cyl), ta = s.target.angle - ang;
      g.beginPath();
      g.arc(CX, CY, tr, (ta / 1000 - 92) * Math.PI / 180,
            (ta / 1000 - 88) * Math.PI / 180);
      g.strokeStyle = '#d7301f';
      g.lineWidth = 7;
      g.stroke();
      g.lineWidth = 1;
    }
    /* the arm, from its pivot to the head over the cylinder */
    var hr = radius(s.cyl_exact), hx = CX, hy = CY - hr;
    g.beginPath();
    g.moveTo(418, 22);
    g.lineTo(hx, hy);
    g.strokeStyle = s.moving ? '#e7298a' : '#444';
    g.lineWidth = 4;
    g.stroke();
    g.lineWidth = 1;
    g.fillStyle = s.moving ? '#e7298a' : '#222';
    g.fillRect(hx - 5, hy - 5, 10, 10);
    g.beginPath();
    g.arc(418, 22, 7, 0, 2 * Math.PI);
    g.fill();
    /*
     * The words go in the corners, clear of the disk: a label turning with
     * the platter (the index, the target's) would cross the others and
     * the canvas edge at some angle.  (A move to a write-back is seek and
     * rotation in one: its record gives only the end.)
     */
    g.fillStyle = '#222';
    g.fillText('head: cylinder ' + s.cyl + (s.moving_for === 'seek' ? ' (seeking)' :
               s.moving_for ? ' (to a write-back)' : ''), 6, 12);
    g.fillText('platter ' + (ang / 1000).toFixed(1) + '\u00b0 past the index ' +
               '(blue spoke)', 6, 25);
    if (R.zones.length) {
      g.fillText(R.rpm + ' rpm; ' + R.zones.length + ' zones, ' + R.zones[0][1] +
                 ' sectors/track outside, ' + R.zones[R.zones.length - 1][1] +
                 ' inside', 6, 440);
    }
    if (s.target) {
      g.fillStyle = '#d7301f';
      g.fillText('red: the sector ' + s.target.what + ' needs', 6, 453);
    }
  }
  function drawDies(t, s, flight) {
    var g = drive, n = Math.max(1, R.units);
    var cols = Math.ceil(Math.sqrt(n)), size = Math.floor(400 / cols);
    var busy = {}, programs = 0;
    flight.list.forEach(function (c) {
      if (phaseOf(c, t) !== 'transfer') { return; }
      if (c.op === 'READ' && !c.hit) { busy[c.unit] = '#' + c.n; }
      if (c.op === 'WRITE' && !c.cached) { programs++; }
    });
    g.clearRect(0, 0, 440, 456);
    g.fillStyle = '#222';
    g.fillText(n + ' dies: a read lights the die that holds it; ' +
               'programs take any free die', 6, 14);
    var slot = 0;
    for (var u = 0; u < n; u++) {
      var x = 20 + (u % cols) * size, y = 30 + Math.floor(u / cols) * size;
      var read = busy[u], prog = !read && slot < programs;
      if (prog) { slot++; }
      g.fillStyle = read ? '#66c2a5' : prog ? '#fc8d62' : '#eee';
      g.fillRect(x, y, size - 4, size - 4);
      g.fillStyle = '#222';
      g.fillText(read || (prog ? 'program' : 'die ' + u), x + 3, y + 13);
    }
  }

  /* ---- queue and cache ------------------------------------------------ */
  var cache = labelled('cache');
  function drawSide(t, s, flight) {
    var q = document.getElementById('queue');
    var html = flight.list.slice(0, 8).map(function (c) {
      var cls = c === flight.serving ? ' class="serving"' : '';
      return '<div' + cls + '>#' + c.n + ' ' + opName(c) + ' ' +
             (c.op === 'FLUSH' ? '' : 'LBA ' + Math.floor(c.offset / 512) +
              ' ') + '\u2014 ' + phaseOf(c, t) +
             '</div>';
    }).join('');
    if (flight.list.length > 8) {
      html += '<div>... and ' + (flight.list.length - 8) + ' more</div>';
    }
    if (flight.others) {
      html += '<div>and ' + flight.others + ' outside the window\'s ' +
              cmds.length + ' commands (' + (flight.list.length +
              flight.others) + ' in the drive)</div>';
    }
    q.innerHTML = html || '<div>(empty: host time)</div>';
    var g = cache, W = 420, cap = Math.max(1, R.cache_bytes);
    g.clearRect(0, 0, W, 56);
    g.fillStyle = '#eee';
    g.fillRect(0, 0, W, 18);
    g.fillStyle = '#ffd92f';
    /* full at whichever limit comes first: its bytes or its segments */
    var full = Math.max(s.dirty_bytes / cap,
                        s.dirty.extents.length / Math.max(1, R.cache_segments));
    g.fillRect(0, 0, W * Math.min(1, full), 18);
    g.fillStyle = '#eee';
    g.fillRect(0, 28, W, 18);
    g.fillStyle = '#e6550d';
    s.dirty.extents.forEach(function (c) {
      g.fillRect(W * c.offset / R.capacity, 28, 2, 18);
    });
    g.fillStyle = '#222';
    g.fillText('cached writes / cache', 4, 13);
    g.fillText('where they go (LBA 0 .. end)', 4, 41);
    document.getElementById('cache-text').textContent = R.write_cache ?
      s.dirty.extents.length + ' writes (' + s.dirty_bytes + ' bytes) wait ' +
      'in the cache for their write-back, of at most ' + R.cache_segments +
      ' segments and ' + R.cache_bytes + ' bytes (writes in this window ' +
      'that the cache took: volatile, or durable in a protected buffer; ' +
      'both take room until they are home)' :
      'write cache off: every write goes to the media before it completes';
  }

  /* ---- the timeline --------------------------------------------------- */
  var tlc = document.getElementById('timeline'), tl = labelled('timeline');
  var TW = tlc.width, TH = tlc.height, X0 = 200, X1 = TW - 20, ROW = 16;
  var STRIP = 70, view = { from: t0, to: t1 }, hits = [];
  var selected = null;
  (function initialView() {
    if (cmds.length > 40) {
      var span = (t1 - t0) * 30 / cmds.length;
      view = { from: t0, to: t0 + span };
    }
  })();
  function xOf(t) { return X0 + (t - view.from) * (X1 - X0) / (view.to - view.from); }
  function follow(t) {
    var span = view.to - view.from;
    if (t < view.from || t > view.to) {
      view.from = Math.max(t0, t - span * 0.1);
      view.to = view.from + span;
    }
  }
  function drawTimeline(t, s) {
    var g = tl;
    g.clearRect(0, 0, TW, TH);
    g.font = '11px monospace';
    /* the legend: only the parts this window has */
    var present = PARTS.filter(function (p) {
      return cmds.some(function (c) { return c[p[0]] > 0; });
    });
    var lx = X0;
    present.forEach(function (p) {
      g.fillStyle = p[2];
      g.fillRect(lx, 4, 10, 10);
      g.fillStyle = '#222';
      g.fillText(p[1], lx + 14, 13);
      lx += 24 + 7 * p[1].length;
    });
    var bottom = TH - (rotating ? STRIP + 30 : 26), y = 22;
    /* the rows in the window; when more than fit, a run of them around
     * the command under the cursor (or the one clicked) */
    var shown = cmds.filter(function (c) {
      return c.done >= view.from && c.submit <= view.to;
    });
    var fit = Math.floor((bottom - y) / ROW), focus = selected || s.cmd_obj;
    if (shown.length > fit) {
      var k = Math.max(0, shown.indexOf(focus));
      var first = Math.max(0, Math.min(shown.length - fit, k - (fit >> 1)));
      shown = shown.slice(first, first + fit);
    }
    hits = [];
    for (var i = 0; i < shown.length; i++) {
      var c = shown[i];
      var at = c.submit;
      if (c === selected || c === s.cmd_obj) {
        g.fillStyle = c === selected ? '#fff3c4' : '#f2f2f2';
        g.fillRect(0, y, TW, ROW);
      }
      g.fillStyle = '#222';
      g.fillText('#' + c.n + ' ' + opName(c) + (c.op === 'FLUSH' ? '' :
                 ' LBA ' + Math.floor(c.offset / 512)), 4, y + 12);
      PARTS.forEach(function (p) {
        var ns = c[p[0]];
        if (!ns) { return; }
        var x0 = Math.max(X0, xOf(at)), x1 = Math.min(X1, xOf(at + ns));
        if (x1 > x0) {
          g.fillStyle = p[2];
          g.fillRect(x0, y + 2, Math.max(1, x1 - x0), ROW - 4);
        }
        at += ns;
      });
      hits.push({ y0: y, y1: y + ROW, c: c });
      y += ROW;
    }
    /* the strip: the platter's angle, each access's target angle marked */
    var sy = bottom + 6;
    if (rotating) {
      g.strokeStyle = '#999';
      g.strokeRect(X0, sy, X1 - X0, STRIP);
      g.fillStyle = '#222';
      g.fillText('platter angle', 4, sy + 12);
      g.fillText('\u25b2 target sector', 4, sy + 26);
      g.beginPath();
      var steps = X1 - X0;
      for (var px = 0; px <= steps; px++) {
        var tt = view.from + (view.to - view.from) * px / steps;
        var yy = sy + STRIP - STRIP * angleMdeg(tt) / 360000;
        if (px === 0) { g.moveTo(X0 + px, yy); } else { g.lineTo(X0 + px, yy); }
      }
      g.strokeStyle = '#1f78b4';
      g.stroke();
      arrivals.forEach(function (a) {
        /* where the platter's angle last reached the sector by the end of
         * the access (as --timeline's red lines end) */
        var past = (angleMdeg(a.end) - a.angle + 360000) % 360000;
        var ax = xOf(a.end - past * R.rev_ns / 360000);
        if (ax < X0 || ax > X1) { return; }
        var ay = sy + STRIP - STRIP * a.angle / 360000;
        g.fillStyle = '#d7301f';
        g.beginPath();
        g.moveTo(ax, ay - 4);
        g.lineTo(ax + 4, ay + 3);
        g.lineTo(ax - 4, ay + 3);
        g.fill();
      });
    }
    /* the axis and the cursor */
    var ay2 = TH - 8;
    g.fillStyle = '#222';
    g.fillText(dur(view.from), X0, ay2);
    g.fillText(dur(view.to), X1 - 70, ay2);
    var cx = xOf(t);
    if (cx >= X0 && cx <= X1) {
      g.strokeStyle = '#d7301f';
      g.beginPath();
      g.moveTo(cx, 18);
      g.lineTo(cx, TH - 18);
      g.stroke();
    }
  }

  /* ---- state and the loop --------------------------------------------- */
  var now = t0, playing = false, speed = 0.01, target = null, resolveTo = null;
  var lastWall = null;

  function state() {
    var t = now, flight = inFlight(t), arm = armAt(t), acc = accessAt(t);
    var d = dirtyAt(t);
    return {
      t_ns: t,
      cmd: flight.serving ? flight.serving.n : null,
      cmd_obj: flight.serving,
      phase: flight.serving ? phaseOf(flight.serving, t) : null,
      queued: flight.list.length + flight.others,
      cyl: Math.round(arm.cyl),
      cyl_exact: arm.cyl,
      moving: arm.moving,
      /* what the arm moves for: a command's seek (its time exact), or a
       * write-back, whose record gives only its end (seek and rotation,
       * drawn as one move) */
      moving_for: arm.moving ? (arm.to.what === 'a write-back' ? 'write-back'
                                                             : 'seek') : null,
      head: arm.head,
      angle_mdeg: angleMdeg(t),
      target: acc ? { what: acc.what, cyl: acc.cyl, angle: acc.angle } : null,
      dirty_bytes: d.bytes,
      dirty: d,
      flight: flight
    };
  }
  function publicState() {
    var s = state();
    return { t_ns: s.t_ns, cmd: s.cmd, phase: s.phase, queued: s.queued,
             cyl: rotating ? s.cyl : null, moving: s.moving,
             moving_for: s.moving_for, head: s.head,
             angle_mdeg: s.angle_mdeg, target: s.target,
             dirty_bytes: s.dirty_bytes, selected: selected ? selected.n : null,
             explain: document.getElementById('explain').textContent,
             errors: window.platterErrors.slice() };
  }
  function render() {
    var s = state();
    labels = [];
    if (rotating) { drawPlatter(now, s); } else { drawDies(now, s, s.flight); }
    drawSide(now, s, s.flight);
    follow(now);
    drawTimeline(now, s);
    var shown = selected || s.cmd_obj;
    document.getElementById('explain').textContent = shown ?
      explainRow(shown) : '(no command in the drive: host time)';
    document.getElementById('clock').textContent = 'virtual time ' + dur(now) +
      (playing ? ' (playing)' : '');
    document.getElementById('play').textContent = playing ? 'pause' : 'play';
    document.getElementById('state').textContent =
      JSON.stringify(publicState());
  }
  function frame(wall) {
    if (playing) {
      if (lastWall !== null) {
        var next = now + Math.max(1, Math.floor((wall - lastWall) * 1e6 * speed));
        var stop = target !== null ? target : t1;
        if (next >= stop) {
          next = stop;
          playing = false;
          target = null;
          if (resolveTo) { var r = resolveTo; resolveTo = null; setTimeout(r, 0); }
        }
        now = next;
      }
      lastWall = wall;
      render();
    } else {
      lastWall = null;
    }
    requestAnimationFrame(frame);
  }
  function seek(t) {
    now = Math.max(t0, Math.min(t1, Math.floor(t)));
    playing = false;
    target = null;
    render();
  }
  function step(dir) {
    /* to the next (previous) command's submit */
    var list = cmds.map(function (c) { return c.submit; }).sort(function (a, b) {
      return a - b;
    });
    var t = dir > 0 ? list.find(function (x) { return x > now; }) :
      list.slice().reverse().find(function (x) { return x < now; });
    if (t !== undefined) { selected = null; seek(t); }
  }

  document.getElementById('play').onclick = function () {
    playing = !playing;
    target = null;
    if (playing && now >= t1) { now = t0; }
    render();
  };
  document.getElementById('prev').onclick = function () { step(-1); };
  document.getElementById('next').onclick = function () { step(1); };
  document.getElementById('speed').onchange = function (e) {
    speed = Number(e.target.value);
  };
  function zoom(f) {
    var mid = now, span = Math.max(1000, (view.to - view.from) * f);
    view.from = Math.max(t0, mid - span / 2);
    view.to = view.from + span;
    render();
  }
  document.getElementById('zoom-in').onclick = function () { zoom(0.5); };
  document.getElementById('zoom-out').onclick = function () { zoom(2); };
  tlc.onclick = function (e) {
    var r = tlc.getBoundingClientRect(), y = e.clientY - r.top;
    var h = hits.find(function (x) { return y >= x.y0 && y < x.y1; });
    if (h) { selected = h.c; seek(h.c.submit); }
  };

  /* the page's words: the question first, what to notice last */
  [['question', R.question, ''], ['notice', R.notice, 'What to notice: ']]
    .forEach(function (w) {
      var el = document.getElementById(w[0]);
      el.hidden = !w[1];
      el.textContent = w[1] ? w[2] + w[1] : '';
    });
  document.getElementById('command').textContent = R.command;
  document.getElementById('device').textContent = (rotating ?
    R.rpm + ' rpm, ' + R.cylinders + ' cylinders, ' + R.heads + ' heads, ' +
    R.zones.length + ' zones' : 'flash, ' + R.units + ' dies') +
    '; write cache ' + (R.write_cache ? 'on' : 'off') + ', FUA ' +
    (R.fua ? 'native' : 'absent') + ', queue depth ' + R.queue_depth +
    '; ' + cmds.length + ' commands, #' + cmds[0].n + '-#' +
    cmds[cmds.length - 1].n;
  document.getElementById('drive-caption').textContent = rotating ?
    'Top view: the platter turns under a fixed head (top); the bands are ' +
    'the recording zones (darker: more sectors per track); red: the sector ' +
    'the access in progress needs, coming round to the head.' :
    'Flash: no platter, dies instead.';
  document.getElementById('notes').textContent = 'Bars: each command from ' +
    'its submit, split into the parts --explain lists, in that order. ' +
    'Click a bar for its --explain row. ' + (rotating ? 'A write-back\'s ' +
    'arm move is drawn over at most the revolution before it ends (the ' +
    'record gives only its end).' : '') + (R.durable_full ?
    ' Only the first write-backs are kept.' : '');

  window.platter = {
    record: R,
    seek: function (t) { seek(t); return publicState(); },
    state: publicState,
    labels: function () { return labels.slice(); },
    /* where command n's row is drawn, in page coordinates, or null */
    barAt: function (n) {
      var h = hits.find(function (x) { return x.c.n === n; });
      if (!h) { return null; }
      var r = tlc.getBoundingClientRect();
      return { x: r.left + window.scrollX + (X0 + X1) / 2,
               y: r.top + window.scrollY + (h.y0 + h.y1) / 2 };
    },
    setSpeed: function (v) {
      speed = v;
      document.getElementById('speed').value = String(v);
    },
    playTo: function (t) {
      return new Promise(function (resolve) {
        target = Math.max(now, Math.min(t1, Math.floor(t)));
        resolveTo = function () { render(); resolve(publicState()); };
        playing = true;
        lastWall = null;
      });
    }
  };
  var m = /#t=(\d+)/.exec(location.hash);
  seek(m ? Number(m[1]) : t0);
  requestAnimationFrame(frame);
})();
