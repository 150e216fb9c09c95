/// The page a browser gets from `huddle share` (docs/localsend.md, "Sharing"): no app needed on the other device.
/// It asks for the list (`prepare-download`, with a PIN when the device wants one), then shows each file as a
/// download link. Names are set as text, never as markup; the script is served apart so the page's
/// Content-Security-Policy allows no inline script.
enum LocalSendSharePage {
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Shared files</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 40em; padding: 0 1em; }
        li { margin: 0.6em 0; } .size { color: #666; } #status { color: #444; } [hidden] { display: none; }
        a.file { font-size: 1.1em; }
        </style>
        <script src="/share.js" defer></script>
        </head>
        <body>
        <h1 id="title">Shared files</h1>
        <p id="status">Asking for the list of files…</p>
        <form id="pin-form" hidden>
        <label for="pin">PIN</label> <input id="pin" name="pin" autocomplete="off" inputmode="numeric">
        <button id="pin-submit" type="submit">Show the files</button>
        </form>
        <ul id="files"></ul>
        </body>
        </html>
        """

    static let script = """
        "use strict";
        const api = "/api/localsend/v2";
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
            link.href = api + "/download?sessionId=" + encodeURIComponent(answer.sessionId) +
              "&fileId=" + encodeURIComponent(file.id);
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
            response = await fetch(api + "/prepare-download?" + query.toString(), { method: "POST" });
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
        document.addEventListener("DOMContentLoaded", () => {
          document.getElementById("pin-form").addEventListener("submit", (event) => {
            event.preventDefault();
            ask(document.getElementById("pin").value.trim());
          });
          ask(null);
        });
        """
}
