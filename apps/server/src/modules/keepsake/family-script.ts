import { createHash } from "node:crypto";

/**
 * The listening page's one script (`GET /k/family-reply.js`; the CSP allows scripts from this origin only, none
 * inline). It adds the recorder to the reply and question forms: hold to record (pointer, or Space/Enter held), play
 * back, record again, send. The forms work without it (method="post"); with it they post with fetch, and a voice
 * that cannot reach the server is kept in memory and sent again (on "online" and with a growing wait) until the
 * server answers, so no take is lost on a bad connection. The recorder's container choice follows the app's
 * (apps/web/src/lib/recorder.ts). Plain ES2017 in a string: the server's bundle carries it, no build step.
 */
export const FAMILY_SCRIPT = `"use strict";
(function () {
  var texts = JSON.parse(document.body.getAttribute("data-family") || "{}");
  var TYPES = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus", "audio/mp4;codecs=mp4a.40.2", "audio/mp4"];
  var canRecord =
    typeof MediaRecorder !== "undefined" && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia) &&
    TYPES.some(function (t) { return MediaRecorder.isTypeSupported(t); });
  function errorKey(code, field) {
    if (code === "invalid_phone") return "errorPhone";
    if (code === "payload_too_large") return "errorTooLarge";
    if (code === "unsupported_media_type" || code === "bad_request") return "errorFormat";
    if (code === "rate_limited") return "errorRate";
    if (code === "validation_failed") return field === "name" ? "errorName" : field === "text" ? "errorText" : "errorOther";
    return "errorOther";
  }
  function extension(type) {
    return type.indexOf("ogg") >= 0 ? "ogg" : type.indexOf("mp4") >= 0 ? "m4a" : "webm";
  }
  Array.prototype.forEach.call(document.querySelectorAll("form[data-family-form]"), function (form) {
    var take = null;
    var block = form.querySelector(".recorder");
    var hold = form.querySelector("button.hold");
    var status = form.querySelector(".status");
    var error = form.querySelector(".error");
    var submit = form.querySelector("button[type=submit]");
    var recorder = null;
    var stopWanted = false;
    var player = null;
    var retry = null;
    if (canRecord && block) block.hidden = false;
    // Back online: a message waiting to be sent again goes now.
    window.addEventListener("online", function () { if (retry) retry(); });
    function show(text) { status.textContent = text; }
    function setTake(next) {
      take = next;
      if (player) { URL.revokeObjectURL(player.src); player.remove(); player = null; }
      if (take) {
        player = document.createElement("audio");
        player.controls = true;
        player.src = URL.createObjectURL(take.blob);
        block.insertBefore(player, status);
        hold.textContent = texts.again;
      } else hold.textContent = texts.hold;
    }
    function start() {
      if (recorder) return;
      stopWanted = false;
      var type = TYPES.filter(function (t) { return MediaRecorder.isTypeSupported(t); })[0];
      hold.setAttribute("aria-pressed", "true");
      show(texts.recording);
      navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
        var chunks = [];
        var r = new MediaRecorder(stream, { mimeType: type });
        r.ondataavailable = function (e) { if (e.data.size > 0) chunks.push(e.data); };
        r.onstop = function () {
          stream.getTracks().forEach(function (track) { track.stop(); });
          recorder = null;
          var mime = (r.mimeType || type).split(";")[0];
          var blob = new Blob(chunks, { type: mime });
          hold.setAttribute("aria-pressed", "false");
          show("");
          if (blob.size > 0) setTake({ blob: blob, type: mime });
        };
        recorder = r;
        r.start(250);
        if (stopWanted) r.stop();
      }, function () {
        hold.setAttribute("aria-pressed", "false");
        show(texts.noMic);
      });
    }
    function stop() {
      stopWanted = true;
      if (recorder && recorder.state !== "inactive") recorder.stop();
    }
    if (hold) {
      hold.addEventListener("pointerdown", function (e) { e.preventDefault(); start(); });
      hold.addEventListener("pointerup", stop);
      hold.addEventListener("pointerleave", stop);
      hold.addEventListener("pointercancel", stop);
      hold.addEventListener("keydown", function (e) {
        if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); start(); }
      });
      hold.addEventListener("keyup", function (e) { if (e.key === " " || e.key === "Enter") stop(); });
      hold.addEventListener("contextmenu", function (e) { e.preventDefault(); });
    }
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      error.textContent = "";
      var data = new FormData(form);
      if (take) data.append("audio", take.blob, "voice." + extension(take.type));
      submit.disabled = true;
      show(texts.sending);
      var wait = 2000;
      function thank() {
        var done = document.createElement("div");
        done.setAttribute("role", "status");
        done.className = "thanks";
        var title = document.createElement("p");
        title.innerHTML = "<strong></strong>";
        title.firstChild.textContent = texts.thanksTitle;
        var body = document.createElement("p");
        body.textContent = texts.thanks + (data.get("phone") ? " " + texts.thanksPhone : "");
        done.appendChild(title);
        done.appendChild(body);
        form.replaceWith(done);
        setTake(null);
      }
      function again() {
        show(texts.retrying);
        retry = function () { retry = null; clearTimeout(timer); send(); };
        var timer = setTimeout(retry, wait);
        wait = Math.min(wait * 2, 30000);
      }
      function send() {
        fetch(form.action, { method: "POST", body: data, headers: { accept: "application/json" } }).then(function (res) {
          if (res.status === 201) return thank();
          if (res.status === 502 || res.status === 503 || res.status === 504) return again();
          return res.json().catch(function () { return {}; }).then(function (body) {
            var field = body && body.details && body.details.field;
            if (!field && body && body.details && body.details.issues && body.details.issues[0])
              field = String(body.details.issues[0].path || "").replace("/", "");
            var code = (body && body.code) || (res.status === 413 ? "payload_too_large" : res.status === 429 ? "rate_limited" : "");
            error.textContent = texts[errorKey(code, field)];
            submit.disabled = false;
            show("");
          });
        }, again);
      }
      send();
    });
  });
})();
`;

/** Its ETag: the script changes only with a new server build. */
export const FAMILY_SCRIPT_ETAG = `"${createHash("sha256").update(FAMILY_SCRIPT).digest("base64url").slice(0, 16)}"`;
