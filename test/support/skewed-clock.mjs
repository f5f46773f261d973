// Preloaded into a child process (`node --import`) to skew its host clock by REVEILLE_TEST_CLOCK_SKEW_MS:
// `Date.now()` and `new Date()` lie, so anything reading the host clock would decide differently (SC-6).
const skew = Number(process.env.REVEILLE_TEST_CLOCK_SKEW_MS ?? 0);
const HostDate = globalThis.Date;

class SkewedDate extends HostDate {
  constructor(...args) {
    if (args.length === 0) super(HostDate.now() + skew);
    else super(...args);
  }

  static now() {
    return HostDate.now() + skew;
  }
}

globalThis.Date = SkewedDate;
