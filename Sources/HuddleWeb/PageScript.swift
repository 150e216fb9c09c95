/// The page's one script, served from the binary (docs/web.md, "Sending" and "Live"): it sends the files chosen or
/// dropped, each with a progress bar (and a thumbnail for an image), says chat lines without reloading the page,
/// offers the files chosen for a phone with a new code (its form kept across updates, with the files chosen),
/// and keeps the lists live — on each `changed`
/// from `/live` it fetches the page again and swaps in the server's lists. Names are set as text, never as markup.
/// The page works without it, but for sending.
enum PageScript {
    static let js = """
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const query = "token=" + encodeURIComponent(token);
        const form = document.getElementById("send-form");
        const select = document.getElementById("send-to");
        const input = document.getElementById("send-files");
        const drop = document.getElementById("drop");
        const list = document.getElementById("sends");
        const status = document.getElementById("live-status");
        function say(text) { status.textContent = text; }
        function sizeText(bytes) {
          const units = ["bytes", "KB", "MB", "GB", "TB"];
          let value = bytes, unit = 0;
          while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
          return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
        }
        async function refresh() {
          let response;
          try { response = await fetch("/" + location.search); } catch (error) { say("The daemon cannot be reached."); return; }
          if (response.status === 403) { say("The daemon restarted: open the page again with huddle ui."); return; }
          if (!response.ok) return;
          const next = new DOMParser().parseFromString(await response.text(), "text/html");
          document.getElementById("live").replaceWith(document.adoptNode(next.getElementById("live")));
          const freshPhone = document.getElementById("phone-files");
          if (phoneForm && freshPhone) freshPhone.replaceWith(phoneForm);
          const chosen = select.value;
          select.replaceChildren(...[...next.getElementById("send-to").options].map(o => document.adoptNode(o)));
          if ([...select.options].some(o => o.value === chosen)) select.value = chosen;
          form.querySelector("button").toggleAttribute("disabled", select.options.length === 0);
        }
        function connect() {
          const socket = new WebSocket("ws://" + location.host + "/live?" + query);
          socket.onopen = () => say("Live: this page follows the daemon.");
          socket.onmessage = () => refresh();
          socket.onclose = () => {
            say("Reconnecting to the daemon…");
            setTimeout(() => { refresh(); connect(); }, 2000);
          };
        }
        function send(file, to) {
          const item = document.createElement("li");
          item.className = "sending";
          if (file.type.startsWith("image/")) {
            const thumb = document.createElement("img");
            thumb.className = "thumb";
            thumb.alt = "";
            thumb.src = URL.createObjectURL(file);
            item.append(thumb);
          }
          const about = document.createElement("div");
          about.className = "about";
          const name = document.createElement("span");
          name.className = "name";
          name.textContent = file.name;
          const bar = document.createElement("progress");
          bar.max = Math.max(file.size, 1);
          bar.value = 0;
          const note = document.createElement("div");
          note.className = "detail";
          note.textContent = "to " + to + " · uploading " + sizeText(file.size);
          about.append(name, bar, note);
          item.append(about);
          list.hidden = false;
          list.prepend(item);
          return new Promise(resolve => {
            const request = new XMLHttpRequest();
            request.open("POST", "/upload?" + query + "&to=" + encodeURIComponent(to) +
              "&name=" + encodeURIComponent(file.name));
            request.upload.onprogress = event => {
              bar.value = event.loaded;
              note.textContent = "to " + to + " · " + sizeText(event.loaded) + " of " + sizeText(file.size);
            };
            request.upload.onload = () => { bar.removeAttribute("value"); note.textContent = "sending to " + to + "…"; };
            // The answer is one JSON object a line: how far the send to the device is, then what it came to.
            const answers = () => request.responseText.split("\\n").filter(line => line)
              .map(line => { try { return JSON.parse(line); } catch (error) { return null; } });
            const sentSoFar = () => {
              const step = answers().filter(answer => answer && answer.progress).pop();
              if (!step) return;
              bar.max = Math.max(step.progress.total, 1);
              bar.value = step.progress.completed;
              bar.dataset.sent = step.progress.completed;
              note.textContent = "to " + to + " · sent " + sizeText(step.progress.completed) + " of " +
                sizeText(step.progress.total);
            };
            request.onprogress = sentSoFar;
            request.onload = () => {
              sentSoFar();
              const result = answers().filter(answer => answer && "status" in answer).pop() || null;
              bar.max = 1;
              bar.value = 1;
              const ok = request.status === 200 && result && result.status === 0;
              note.textContent = result ? result.lines.join(" ") : request.responseText || ("failed: " + request.status);
              item.classList.add(ok ? (result.queued ? "queued" : "done") : "failed");
              resolve();
            };
            request.onerror = () => {
              note.textContent = "the daemon cannot be reached";
              item.classList.add("failed");
              resolve();
            };
            request.send(file);
          });
        }
        async function sendAll(files) {
          const to = select.value;
          if (!to) return;
          for (const file of files) await send(file, to);
        }
        form.addEventListener("submit", async event => {
          event.preventDefault();
          const files = [...input.files];
          input.value = "";
          await sendAll(files);
        });
        drop.addEventListener("dragover", event => { event.preventDefault(); drop.classList.add("over"); });
        drop.addEventListener("dragleave", () => drop.classList.remove("over"));
        drop.addEventListener("drop", event => {
          event.preventDefault();
          drop.classList.remove("over");
          sendAll([...event.dataTransfer.files]);
        });
        const sayForm = document.getElementById("say");
        sayForm.addEventListener("submit", async event => {
          event.preventDefault();
          const field = sayForm.querySelector("input");
          let response;
          try {
            response = await fetch("/say?" + query, { method: "POST", body: new URLSearchParams({ text: field.value }) });
          } catch (error) { say("The daemon cannot be reached."); return; }
          if (response.ok) { field.value = ""; refresh(); } else { say(await response.text()); }
        });
        const phoneForm = document.getElementById("phone-files");
        if (phoneForm) {
          phoneForm.hidden = false;
          phoneForm.addEventListener("submit", async event => {
            event.preventDefault();
            const pick = document.getElementById("phone-pick");
            const note = phoneForm.querySelector(".detail");
            const files = [...pick.files];
            const batch = [...crypto.getRandomValues(new Uint8Array(8))]
              .map(b => b.toString(16).padStart(2, "0")).join("");
            for (const file of files) {
              note.textContent = "uploading " + file.name + " (" + sizeText(file.size) + ")…";
              let response;
              try {
                response = await fetch("/phone-file?" + query + "&batch=" + batch + "&name=" +
                  encodeURIComponent(file.name), { method: "POST", body: file });
              } catch (error) { note.textContent = "The daemon cannot be reached."; return; }
              if (!response.ok) { note.textContent = await response.text(); return; }
            }
            let shown;
            try {
              shown = await fetch("/phone?" + query + "&batch=" + batch, { method: "POST" });
            } catch (error) { note.textContent = "The daemon cannot be reached."; return; }
            if (!shown.ok) { note.textContent = await shown.text(); return; }
            pick.value = "";
            note.textContent = files.length + (files.length === 1 ? " file" : " files") + " offered with the new code.";
            refresh();
          });
        }
        form.hidden = false;
        form.querySelector("button").toggleAttribute("disabled", select.options.length === 0);
        connect();
        """
}
