import { describe, expect, it } from "vitest";
import { twilioSignature, verifyTwilioSignature } from "../../src/voice/twilio-signature.ts";

// Twilio's published request-validation example (its docs and every official helper library test it).
const AUTH_TOKEN = "12345";
const URL = "https://mycompany.com/myapp.php?foo=1&bar=2";
const PARAMS = {
  CallSid: ["CA1234567890ABCDE"],
  Caller: ["+14158675309"],
  Digits: ["1234"],
  From: ["+14158675309"],
  To: ["+18005551212"],
};
const SIGNATURE = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";

describe("Twilio webhook signature", () => {
  it("reproduces Twilio's published example", () => {
    expect(twilioSignature(AUTH_TOKEN, URL, PARAMS)).toBe(SIGNATURE);
    expect(verifyTwilioSignature(AUTH_TOKEN, URL, PARAMS, SIGNATURE)).toBe(true);
  });

  it("reproduces the published example with repeated parameters (values sorted, duplicates once)", () => {
    const repeated = { Sid: ["CA123"], SidAccount: ["AC123"], Digits: ["5678", "1234", "1234"] };
    expect(twilioSignature(AUTH_TOKEN, URL, repeated)).toBe("IK+Dwps556ElfBT0I3Rgjkr1wJU=");
  });

  it("refuses a changed parameter, URL, token or signature, and a missing one", () => {
    expect(verifyTwilioSignature(AUTH_TOKEN, URL, { ...PARAMS, Digits: ["9999"] }, SIGNATURE)).toBe(false);
    expect(verifyTwilioSignature(AUTH_TOKEN, `${URL}&x=1`, PARAMS, SIGNATURE)).toBe(false);
    expect(verifyTwilioSignature("54321", URL, PARAMS, SIGNATURE)).toBe(false);
    expect(verifyTwilioSignature(AUTH_TOKEN, URL, PARAMS, "RSOYDt4T1cUTdK1PDd93/VVr8B8")).toBe(false);
    expect(verifyTwilioSignature(AUTH_TOKEN, URL, PARAMS, undefined)).toBe(false);
  });

  it("accepts the URL signed with or without the default port, as Twilio's validators do", () => {
    const withPort = "https://mycompany.com:443/myapp.php?foo=1&bar=2";
    expect(verifyTwilioSignature(AUTH_TOKEN, withPort, PARAMS, SIGNATURE)).toBe(true);
    const signedWithPort = twilioSignature(AUTH_TOKEN, withPort, PARAMS);
    expect(verifyTwilioSignature(AUTH_TOKEN, URL, PARAMS, signedWithPort)).toBe(true);
  });
});
