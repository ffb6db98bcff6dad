import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { CarrierApiError, CarrierRest } from "../../src/voice/carrier-rest.ts";
import { CarrierRestDouble, TEST_ACCOUNT_SID, TEST_AUTH_TOKEN } from "./doubles/carrier-rest.ts";
import { startHarness } from "./harness.ts";

let rest: CarrierRestDouble;
beforeEach(async () => {
  rest = await CarrierRestDouble.start();
});
afterEach(async () => {
  await rest.close();
});

const clientOf = (double: CarrierRestDouble, authToken = TEST_AUTH_TOKEN) =>
  new CarrierRest({ accountSid: TEST_ACCOUNT_SID, authToken, apiBase: `${double.url}/` });

describe("the carrier REST API client", () => {
  it("ends a call with Status=completed on Calls/{CallSid}.json, with basic auth and a form body", async () => {
    const call = await clientOf(rest).hangUp("CA0123");
    expect(call).toEqual({ sid: "CA0123", status: "completed" });
    expect(rest.unauthorized).toBe(0);
    const [request] = rest.requests;
    expect(request).toMatchObject({
      method: "POST",
      path: `/2010-04-01/Accounts/${TEST_ACCOUNT_SID}/Calls/CA0123.json`,
      callSid: "CA0123",
      params: { Status: ["completed"] },
    });
  });

  it("redirects a call with TwiML, sent as one form field", async () => {
    const twiml = "<Response><Dial>+4930123456</Dial></Response>";
    await clientOf(rest).redirect("CA0456", twiml);
    expect(rest.requests[0]?.params).toEqual({ Twiml: [twiml] });
  });

  it("a carrier error carries the carrier's code and message, and says both to the model", async () => {
    rest.failNext({ status: 400, code: 21220, message: "Call is not in-progress. Cannot redirect." });
    const error = await clientOf(rest)
      .redirect("CA0789", "<Response/>")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CarrierApiError);
    expect(error).toMatchObject({ httpStatus: 400, code: 21220 });
    expect((error as CarrierApiError).forModel).toBe("carrier error 21220: Call is not in-progress. Cannot redirect.");
  });

  it("wrong credentials are refused by the carrier, and the token never appears in the error", async () => {
    const error = (await clientOf(rest, "wrong-token")
      .hangUp("CA1")
      .catch((caught: unknown) => caught)) as CarrierApiError;
    expect(rest.unauthorized).toBe(1);
    expect(error).toMatchObject({ httpStatus: 401, code: 20003 });
    expect(error.forModel).not.toContain("wrong-token");
  });

  it("an unreachable API is an error without a code", async () => {
    const stopped = await CarrierRestDouble.start();
    await stopped.close();
    const error = (await clientOf(stopped)
      .hangUp("CA1")
      .catch((caught: unknown) => caught)) as CarrierApiError;
    expect(error).toBeInstanceOf(CarrierApiError);
    expect(error.code).toBeUndefined();
    expect(error.forModel).toBe("the carrier's REST API could not be reached");
  });
});

describe("carrier REST configuration", () => {
  it("reads TWILIO_ACCOUNT_SID and TWILIO_API_BASE (default api.twilio.com)", () => {
    expect(loadConfig({}).voice.twilioApiBase).toBe("https://api.twilio.com");
    expect(loadConfig({ TWILIO_ACCOUNT_SID: TEST_ACCOUNT_SID }).voice.twilioAccountSid).toBe(TEST_ACCOUNT_SID);
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: "nope" })).toThrow(
      "Invalid configuration: TWILIO_ACCOUNT_SID must be a Twilio account SID (AC followed by 32 hex digits)",
    );
    expect(() => loadConfig({ TWILIO_API_BASE: "ftp://x" })).toThrow(
      "Invalid configuration: TWILIO_API_BASE must be an http(s) URL",
    );
  });

  it("an account SID without an auth token stops the call server's start with one line", async () => {
    await expect(startHarness({ env: { TWILIO_ACCOUNT_SID: TEST_ACCOUNT_SID } })).rejects.toThrow(
      "TWILIO_ACCOUNT_SID is set without TWILIO_AUTH_TOKEN: the carrier's REST API needs both.",
    );
  });
});
