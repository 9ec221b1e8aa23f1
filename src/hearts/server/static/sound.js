// pyhearts web table: the table's sounds, made with the Web Audio API (no audio files, no
// network), played only when the "Sounds" setting is on.
//
//   play("trick", 0.25)   // a sound by name (play, trick, hearts, queen, turn), after a delay
//   played                // the names of the last sounds played (the tests read it)
//   wire()                // turning sounds on in the settings plays one; once at the start
import * as settings from "./settings.js";

let ctx = null, noiseBuffer = null;
const played = [];  // the names of the last sounds played (the tests read it)

// The audio context, made on first use; a browser may keep it suspended until the page is
// touched, so any key or click resumes it.
function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!ctx && Context) {
    ctx = new Context();
    const resume = () => { if (ctx.state === "suspended") ctx.resume(); };
    for (const kind of ["pointerdown", "keydown"]) document.addEventListener(kind, resume, { capture: true });
  }
  if (ctx && ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

// An envelope: silent, a quick rise to `peak`, an exponential fall over `length` seconds.
function envelope(c, at, length, peak) {
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(peak, at + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, at + length);
  g.connect(c.destination);
  return g;
}

// A note: an oscillator of `type` at `freq` Hz (gliding to `to`, if given).
function tone(c, at, freq, length, { type = "sine", peak = 0.18, to = null } = {}) {
  const o = c.createOscillator();
  o.type = type;
  o.frequency.setValueAtTime(freq, at);
  if (to) o.frequency.exponentialRampToValueAtTime(to, at + length);
  o.connect(envelope(c, at, length, peak));
  o.start(at);
  o.stop(at + length + 0.02);
}

// A burst of band-passed noise around `freq` Hz: the swish of a card on the cloth.
function swish(c, at, freq, length, peak = 0.35) {
  if (!noiseBuffer) {
    noiseBuffer = c.createBuffer(1, Math.floor(c.sampleRate * 0.4), c.sampleRate);
    const data = noiseBuffer.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
  }
  const src = c.createBufferSource();
  src.buffer = noiseBuffer;
  const band = c.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = freq;
  band.Q.value = 1.1;
  src.connect(band).connect(envelope(c, at, length, peak));
  src.start(at);
  src.stop(at + length + 0.02);
}

// Each sound of the table, from its start time.
const SOUNDS = {
  play: (c, t) => swish(c, t, 2600, 0.08),
  trick: (c, t) => { swish(c, t, 1200, 0.12, 0.3); swish(c, t + 0.07, 1800, 0.1, 0.25); },
  hearts: (c, t) => { tone(c, t, 784, 0.16, { type: "triangle" }); tone(c, t + 0.13, 587, 0.3, { type: "triangle", to: 554 }); },
  queen: (c, t) => { for (const f of [147, 175, 208]) tone(c, t, f, 0.7, { type: "sawtooth", peak: 0.06 }); tone(c, t, 220, 0.7, { to: 110, peak: 0.12 }); },
  turn: (c, t) => { tone(c, t, 880, 0.14, { peak: 0.12 }); tone(c, t + 0.1, 1319, 0.22, { peak: 0.12 }); },
};

// Plays the sound `name` after `delay` seconds, if sounds are on.
function play(name, delay = 0) {
  if (!settings.get("sound") || !SOUNDS[name]) return;
  const c = audio();
  if (!c) return;
  played.push(name);
  if (played.length > 300) played.shift();
  SOUNDS[name](c, c.currentTime + 0.01 + delay);
}

// Turning sounds on plays one (the click lets the browser start the audio).
function wire() {
  document.getElementById("set-sound").addEventListener("change", (e) => { if (e.target.checked) play("turn"); });
}

export { play, played, wire };
