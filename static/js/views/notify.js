// Telling the player what happened without their looking: the tab's title on their turn, an
// optional chime, and a polite screen-reader announcement of the turn line and of moves.

import { t } from "../i18n.js";
import { preference } from "../preferences.js";

let audio = null;
// Chat lines that came while the tab was hidden: the title counts them until it is seen.
let unseenChat = 0;
let turnTitle = false;

// Speaks `text` through the page's one live region (index.html), which outlives redraws so that
// screen readers hear every change.
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  region.textContent = "";
  // A fresh text node in a later task is announced even when the words repeat.
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

export function setTurnTitle(mine) {
  turnTitle = mine;
  const title = mine ? t("notify.title_your_turn", { app: t("app.name") }) : t("app.name");
  document.title = unseenChat ? t("notify.title_chat", { n: unseenChat, title }) : title;
}

// A chat line while the tab is hidden: a mark in the title and, with the sound setting on,
// the chime. Seeing the tab again clears the mark.
export function chatWhileHidden() {
  if (!document.hidden) return;
  unseenChat += 1;
  setTurnTitle(turnTitle);
  chime();
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden || !unseenChat) return;
  unseenChat = 0;
  setTurnTitle(turnTitle);
});

// A short two-note chime made by Web Audio (no sound file to fetch); only with the setting on.
export function chime() {
  tones([[0, 660], [0.14, 880]]);
}

// Three quick rising notes: someone joined.
export function chirp() {
  tones([[0, 523], [0.09, 659], [0.18, 784]]);
}

function tones(notes) {
  if (!preference("sound")) return;
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime + 0.02;
    for (const [offset, frequency] of notes) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.2, start + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.25);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + offset);
      tone.stop(start + offset + 0.3);
    }
  } catch {
    // No audio device, or the browser refuses sound before a click: the title still says it.
  }
}

// Follows one room's turn: on the player's turn the title changes and the chime sounds once; a
// changed turn line is announced.
export function createTurnWatch() {
  let mine = false;
  let line = null;
  return {
    update({ myTurn, text }) {
      if (myTurn && !mine) chime();
      mine = myTurn;
      setTurnTitle(mine);
      if (text && text !== line) announce(text);
      line = text;
    },
    dispose() {
      mine = false;
      setTurnTitle(false);
    },
  };
}
