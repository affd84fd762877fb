"""The fact-checking-guideline audit: pure rules over verdicts, importance and text."""
