/**
 * Looks in a row an executor stops fetching runs for the API, at most: then it fetches
 * for one look, so a client that never stops asking cannot stop the firing for good.
 */
export const API_FIRST_MAX_LOOKS = 10;

/**
 * Whether an executor stops fetching runs so that the requests of its process are
 * answered first. It starts only while the event loop is behind (a saturated executor:
 * disables would wait seconds behind thousands of runs), and lasts while requests keep
 * coming, whatever the loop does meanwhile (it keeps up because the executor stopped).
 * Requests hold the runs back only while the loop is behind: at idle, or under a load the
 * process carries, they cost the firing nothing.
 */
export class ApiFirst {
  private looks = 0;

  constructor(
    private readonly maxLagMs: number,
    private readonly maxLooks = API_FIRST_MAX_LOOKS,
  ) {}

  look(lagMs: number, apiBusy: boolean): void {
    if (!apiBusy || (this.looks === 0 && lagMs <= this.maxLagMs)) this.looks = 0;
    else this.looks = this.looks >= this.maxLooks ? 0 : this.looks + 1;
  }

  get yielding(): boolean {
    return this.looks > 0;
  }
}
