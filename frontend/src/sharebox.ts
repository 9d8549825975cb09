// The share boxes: a link that carries the whole scenario in its fragment
// while it is short enough for every browser, else (and on request) a short
// link /s/{id} to the scenario stored on the server.
import * as api from "./api";
import { h } from "./dom";
import { linkLimit, shareURL, shortURL, type Shared } from "./share";
import type { Scenario } from "./types";

/**
 * inlineLimit is the scenario JSON length past which no fragment link is
 * built: it would be far past linkLimit however well it compresses, and
 * compressing megabytes takes seconds.
 */
const inlineLimit = 100_000;

/** ShareBox is the header's Share link and Save and share. */
export class ShareBox {
  readonly el: HTMLElement;
  private link = h("input", { readonly: true, "data-testid": "share-link", "aria-label": "share link", placeholder: "link to this scenario" });
  private short = h("input", { readonly: true, "data-testid": "share-short-link", "aria-label": "short link", placeholder: "short link (needs the server)" });
  private status = h("span", { class: "muted share-status", role: "status", "data-testid": "share-status" });

  constructor(
    private scenario: () => Scenario,
    private shared: () => Shared,
  ) {
    const shareBtn = h("button", { type: "button", "data-testid": "share" }, "Share link");
    const saveBtn = h("button", { type: "button", "data-testid": "save-share" }, "Save and share");
    shareBtn.addEventListener("click", () => void this.share());
    saveBtn.addEventListener("click", () => void this.saveAndShare());
    this.el = h("div", { class: "share" }, shareBtn, this.link, saveBtn, this.short, this.status);
  }

  /** share gives the fragment link, or the short link when the fragment one would be too long. */
  async share(): Promise<void> {
    const sc = this.scenario();
    const x = this.shared();
    const size = JSON.stringify(sc).length;
    const long = size <= inlineLimit ? shareURL(location.href, sc, x) : "";
    if (long && long.length <= linkLimit) {
      this.show(this.link, long, "");
      return;
    }
    const why = long
      ? `A link holding this scenario would be ${long.length.toLocaleString("en")} characters, past the about ${linkLimit.toLocaleString("en")} every browser and chat tool takes`
      : `This scenario is ${size.toLocaleString("en")} characters of JSON, far too much for a link (about ${linkLimit.toLocaleString("en")} characters is what every browser and chat tool takes)`;
    this.status.textContent = `${why}: storing it on the server for a short link…`;
    try {
      const { url } = await api.saveScenario(sc);
      this.show(this.link, shortURL(location.href, url, x), `${why}, so it is stored on the server: this short link opens it.`);
    } catch (e) {
      this.link.value = long;
      this.status.textContent = `${why}, and the server could not store it for a short link (${(e as Error).message}).${long ? " The long link is in the box; it works where links that long do." : " Share the scenario JSON (JSON tab) instead."}`;
    }
  }

  /** saveAndShare stores the scenario and gives its short link, whatever its size. */
  async saveAndShare(): Promise<void> {
    try {
      const { url } = await api.saveScenario(this.scenario());
      this.show(this.short, shortURL(location.href, url, this.shared()), "");
    } catch (e) {
      this.status.textContent = `Save and share: ${(e as Error).message}`;
    }
  }

  private show(box: HTMLInputElement, link: string, note: string): void {
    box.value = link;
    box.select();
    this.status.textContent = note;
    void navigator.clipboard?.writeText(link).catch(() => {});
  }
}
