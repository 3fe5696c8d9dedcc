"""Free text -> observations (placeholder until the keyword family lands)."""
def parse_complaint(text):
    return []
