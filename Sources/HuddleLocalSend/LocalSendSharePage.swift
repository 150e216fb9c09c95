/// The page a browser gets from `huddle share` (docs/localsend.md, "Sharing"): no app needed on the other device.
/// It asks for the list (`prepare-download`, with a PIN when the device wants one), then shows each file as a
/// download link; with `--receive` it also sends files here (`prepare-upload`, then one `upload` each, with a
/// progress bar), asked about first at this end. Names are set as text, never as markup; the script is served apart so the page's
/// Content-Security-Policy allows no inline script.
enum LocalSendSharePage {
    /// The page: the shared files (`shares`), and a form to send files here (`receives`, `share --receive`).
    /// With a `pass` (a phone's page, hex), the script is asked for with it, and the script adds it to every
    /// request it makes.
    static func html(shares: Bool, receives: Bool, pass: String? = nil) -> String {
        let title = shares ? "Shared files" : "Send files"
        let script = "/share.js" + (pass.map { "?pass=" + $0.filter(\.isHexDigit) } ?? "")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 40em; padding: 0 1em; }
            li { margin: 0.6em 0; } .size { color: #666; } #status, #upload-status { color: #444; }
            [hidden] { display: none; } a.file { font-size: 1.1em; } progress { width: 100%; }
            .done { color: #1f7a3f; } .failed { color: #b3261e; }
            </style>
            <script src="\(script)" defer></script>
            </head>
            <body>
            <h1 id="title">\(title)</h1>
            \(shares ? downloads : "")\
            \(receives ? uploads : "")\
            </body>
            </html>
            """
    }

    static let downloads = """
        <section id="downloads">
        <p id="status">Asking for the list of files…</p>
        <form id="pin-form" hidden>
        <label for="pin">PIN</label> <input id="pin" name="pin" autocomplete="off" inputmode="numeric">
        <button id="pin-submit" type="submit">Show the files</button>
        </form>
        <ul id="files"></ul>
        </section>

        """

    /// The upload form: the files go by LocalSend's upload API once the person at the other end says yes.
    static let uploads = """
        <section id="uploads">
        <h2>Send files here</h2>
        <form id="upload-form">
        <input id="upload-files" type="file" multiple>
        <button id="upload-submit" type="submit">Send</button>
        </form>
        <p id="upload-status">Choose files; the person at this device is asked first.</p>
        <ul id="uploaded"></ul>
        </section>

        """

    static let script = """
        "use strict";
        const api = "/api/localsend/v2";
        const pass = new URLSearchParams(location.search).get("pass");
        function passed(url) { return pass ? url + (url.includes("?") ? "&" : "?") + "pass=" + encodeURIComponent(pass) : url; }
        function sizeText(bytes) {
          const units = ["bytes", "KB", "MB", "GB", "TB"];
          let value = bytes, unit = 0;
          while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
          return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
        }
        function say(text) { document.getElementById("status").textContent = text; }
        function show(answer) {
          sessionStorage.setItem("huddle-share-session", answer.sessionId);
          document.getElementById("pin-form").hidden = true;
          document.getElementById("title").textContent = "Files from " + answer.info.alias;
          const list = document.getElementById("files");
          list.replaceChildren();
          const files = Object.values(answer.files).sort((a, b) => a.fileName.localeCompare(b.fileName));
          for (const file of files) {
            const item = document.createElement("li");
            const link = document.createElement("a");
            link.className = "file";
            link.href = passed(api + "/download?sessionId=" + encodeURIComponent(answer.sessionId) +
              "&fileId=" + encodeURIComponent(file.id));
            link.download = file.fileName;
            link.textContent = file.fileName;
            const size = document.createElement("span");
            size.className = "size";
            size.textContent = " (" + sizeText(file.size) + ")";
            item.append(link, size);
            list.append(item);
          }
          say(files.length === 1 ? "1 file. Tap it to download." : files.length + " files. Tap one to download.");
        }
        async function ask(pin) {
          const query = new URLSearchParams();
          const session = sessionStorage.getItem("huddle-share-session");
          if (session) query.set("sessionId", session);
          if (pin) query.set("pin", pin);
          say("Waiting for the sharing device to let you in…");
          let response;
          try {
            response = await fetch(passed(api + "/prepare-download?" + query.toString()), { method: "POST" });
          } catch (error) {
            say("The sharing device cannot be reached: " + error);
            return;
          }
          if (response.ok) { show(await response.json()); return; }
          if (response.status === 401) {
            document.getElementById("pin-form").hidden = false;
            say(pin ? "That PIN is not the right one." : "The sharing device asks for a PIN.");
            return;
          }
          if (response.status === 403) { say("The sharing device declined."); return; }
          if (response.status === 429) { say("Too many wrong PINs: wait a minute, then reload."); return; }
          say("The sharing device answered " + response.status + ".");
        }
        function note(text) { document.getElementById("upload-status").textContent = text; }
        function randomHex() {
          const bytes = new Uint8Array(16);
          crypto.getRandomValues(bytes);
          return [...bytes].map(b => b.toString(16).padStart(2, "0")).join("");
        }
        function upload(file, session, id, token) {
          const item = document.createElement("li");
          const name = document.createElement("div");
          name.textContent = file.name + " (" + sizeText(file.size) + ")";
          const bar = document.createElement("progress");
          bar.max = Math.max(file.size, 1);
          bar.value = 0;
          item.append(name, bar);
          document.getElementById("uploaded").append(item);
          return new Promise(resolve => {
            const request = new XMLHttpRequest();
            request.open("POST", passed(api + "/upload?sessionId=" + encodeURIComponent(session) +
              "&fileId=" + encodeURIComponent(id) + "&token=" + encodeURIComponent(token)));
            request.upload.onprogress = event => { bar.value = event.loaded; };
            request.onload = () => {
              bar.value = bar.max;
              item.className = request.status === 200 ? "done" : "failed";
              name.textContent = file.name + (request.status === 200 ? ": sent" : ": failed (" + request.status + ")");
              resolve(request.status === 200);
            };
            request.onerror = () => { item.className = "failed"; name.textContent = file.name + ": failed"; resolve(false); };
            request.send(file);
          });
        }
        async function sendFiles(files) {
          const offered = {};
          files.forEach((file, index) => {
            const id = "f" + index;
            offered[id] = { id: id, fileName: file.name, size: file.size, fileType: file.type || "application/octet-stream" };
          });
          const info = { alias: "A browser", version: "2.1", deviceModel: null, deviceType: "web",
            fingerprint: randomHex(), port: null, protocol: "http", download: false };
          note("Waiting for the person at this device to accept…");
          let response;
          try {
            response = await fetch(passed(api + "/prepare-upload"), { method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ info: info, files: offered }) });
          } catch (error) { note("This device cannot be reached: " + error); return; }
          if (response.status === 403) { note("Declined."); return; }
          if (!response.ok) { note("This device answered " + response.status + ": " + await response.text()); return; }
          const answer = await response.json();
          note("Accepted: sending…");
          let sent = 0;
          for (const [index, file] of files.entries()) {
            const token = answer.files["f" + index];
            if (token && await upload(file, answer.sessionId, "f" + index, token)) sent++;
          }
          note(sent === files.length ? "All sent." : sent + " of " + files.length + " sent.");
        }
        document.addEventListener("DOMContentLoaded", () => {
          const pinForm = document.getElementById("pin-form");
          if (pinForm) {
            pinForm.addEventListener("submit", (event) => {
              event.preventDefault();
              ask(document.getElementById("pin").value.trim());
            });
            ask(null);
          }
          const uploadForm = document.getElementById("upload-form");
          if (uploadForm) {
            uploadForm.addEventListener("submit", (event) => {
              event.preventDefault();
              const files = [...document.getElementById("upload-files").files];
              if (files.length > 0) sendFiles(files);
            });
          }
        });
        """
}
