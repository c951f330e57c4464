"""EuroEval's group boards as it publishes them today (European, Baltic, Finnic, Germanic,
Romance, Scandinavian, Slavic, West Germanic): each group is created, or its name and
members set to EuroEval's. Other groups (an administrator's, the earlier Nordic) are left
as they are. A member language without a row gets one (its board is its ISO 639-1 code,
Norwegian ``no``). The values are written out here, not read from ``languages.py``, so the
migration stays what it was when that file changes."""

from django.db import migrations

NAMES = {
    "sq": "Albanian", "be": "Belarusian", "bs": "Bosnian", "bg": "Bulgarian", "ca": "Catalan",
    "hr": "Croatian", "cs": "Czech", "da": "Danish", "nl": "Dutch", "en": "English", "et": "Estonian",
    "fo": "Faroese", "fi": "Finnish", "fr": "French", "de": "German", "el": "Greek", "hu": "Hungarian",
    "is": "Icelandic", "it": "Italian", "lv": "Latvian", "lt": "Lithuanian", "lb": "Luxembourgish",
    "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "sr": "Serbian",
    "sk": "Slovak", "sl": "Slovenian", "es": "Spanish", "sv": "Swedish", "uk": "Ukrainian",
}  # fmt: skip

GROUPS = {
    "european": ("European", list(NAMES)),
    "baltic": ("Baltic", ["lv", "lt"]),
    "finnic": ("Finnic", ["et", "fi"]),
    "germanic": ("Germanic", ["da", "nl", "en", "fo", "de", "is", "lb", "no", "sv"]),
    "romance": ("Romance", ["ca", "fr", "it", "pt", "ro", "es"]),
    "scandinavian": ("Scandinavian", ["da", "fo", "is", "no", "sv"]),
    "slavic": ("Slavic", ["be", "bs", "bg", "hr", "cs", "pl", "sr", "sk", "sl", "uk"]),
    "west-germanic": ("West Germanic", ["nl", "en", "de", "lb"]),
}


def write_groups(apps, schema_editor):
    Language = apps.get_model("leaderboard", "Language")
    LanguageGroup = apps.get_model("leaderboard", "LanguageGroup")
    for code, name in NAMES.items():
        Language.objects.get_or_create(code=code, defaults={"name": name, "board": code})
    for slug, (name, boards) in GROUPS.items():
        LanguageGroup.objects.update_or_create(slug=slug, defaults={"name": name, "boards": boards})


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0014_task_choices")]
    operations = [migrations.RunPython(write_groups, migrations.RunPython.noop)]
