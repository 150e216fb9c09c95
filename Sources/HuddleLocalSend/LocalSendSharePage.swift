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
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
            <style>\(style)</style>
            <script src="\(script)" defer></script>
            </head>
            <body>
            <header><div class="brand">Huddle</div><h1 id="title">\(title)</h1></header>
            \(shares ? downloads : "")\
            \(receives ? uploads(titled: shares) : "")\
            </body>
            </html>
            """
    }

    /// The look: one column that fits a phone, large touch targets, light and dark by `prefers-color-scheme`.
    static let style = """
        :root { --bg: #f5f6f8; --card: #fff; --text: #1b1d21; --muted: #5d6470; --line: #dde1e6; \
        --accent: #1f9d55; --link: #1a5fb4; --bad: #b3261e; }
        @media (prefers-color-scheme: dark) { :root { --bg: #14171c; --card: #1e232a; --text: #e8eaed; \
        --muted: #9aa3ae; --line: #333a44; --accent: #2fb36b; --link: #8ab4f8; --bad: #f28b82; } }
        * { box-sizing: border-box; }
        body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 36rem; padding: 1rem; \
        background: var(--bg); color: var(--text); line-height: 1.45; }
        header { margin: 0.5rem 0 1rem; } .brand { color: var(--link); font-weight: 700; }
        h1 { font-size: 1.5rem; margin: 0.2rem 0 0; } h2 { font-size: 1.1rem; margin: 0 0 0.8rem; }
        section { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1rem; \
        margin-bottom: 1rem; }
        ul { list-style: none; padding: 0; margin: 0.8rem 0 0; } li { margin: 0.7rem 0; overflow-wrap: anywhere; }
        a.file { color: var(--link); font-size: 1.1rem; font-weight: 600; } .size { color: var(--muted); }
        #status, #upload-status { color: var(--muted); margin: 0.6rem 0 0; } [hidden] { display: none; }
        .drop { display: block; border: 2px dashed var(--line); border-radius: 12px; padding: 1.4rem 1rem; \
        text-align: center; color: var(--muted); cursor: pointer; }
        .drop input { display: block; margin: 0.6rem auto 0; max-width: 100%; color: var(--text); }
        button { font: inherit; border-radius: 10px; border: 1px solid var(--line); padding: 0.55rem 1rem; \
        background: var(--card); color: var(--text); }
        button.primary { display: block; width: 100%; margin-top: 0.8rem; padding: 0.8rem; border: 0; \
        background: var(--accent); color: #fff; font-weight: 600; }
        input#pin { font: inherit; padding: 0.5rem; border-radius: 8px; border: 1px solid var(--line); }
        progress { width: 100%; height: 0.6rem; accent-color: var(--accent); }
        .done { color: var(--accent); } .failed { color: var(--bad); }
        """

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

    /// The upload form: the files go by LocalSend's upload API once the person at the other end says yes. Its
    /// heading only when the page also lists files (alone, the page's title says it).
    static func uploads(titled: Bool) -> String {
        """
        <section id="uploads">
        \(titled ? "<h2>Send files here</h2>" : "")
        <form id="upload-form">
        <label class="drop" for="upload-files">Choose the files to send<input id="upload-files" type="file" multiple>\
        </label>
        <button id="upload-submit" class="primary" type="submit">Send</button>
        </form>
        <p id="upload-status">The person at this device is asked first.</p>
        <ul id="uploaded"></ul>
        </section>

        """
    }

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
          document.title = "Files from " + answer.info.alias;
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
        async function name() {
          try {
            const response = await fetch(passed(api + "/info"));
            if (!response.ok) return;
            const info = await response.json();
            const title = document.getElementById("title");
            if (!document.getElementById("downloads")) title.textContent = "Send files to " + info.alias;
            document.title = title.textContent;
          } catch (error) { /* the title stays */ }
        }
        document.addEventListener("DOMContentLoaded", () => {
          name();
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
