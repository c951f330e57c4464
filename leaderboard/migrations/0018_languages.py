from django.db import migrations

NEW_LANGUAGES = {"be": "Belarusian", "bs": "Bosnian"}  # EuroEval languages 0002 did not seed


def seed(apps, schema_editor):
    Language = apps.get_model("leaderboard", "Language")
    for code, name in NEW_LANGUAGES.items():
        Language.objects.get_or_create(code=code, defaults={"name": name, "board": code})


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0017_submission_job")]
    operations = [
        migrations.RunPython(seed, migrations.RunPython.noop),
    ]
