from django.db import migrations, models

NEW_LANGUAGES = {"be": "Belarusian", "bs": "Bosnian"}  # EuroEval languages 0002 did not seed


def seed(apps, schema_editor):
    Language = apps.get_model("leaderboard", "Language")
    for code, name in NEW_LANGUAGES.items():
        Language.objects.get_or_create(code=code, defaults={"name": name, "board": code})


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0013_exam_run_cancel")]
    operations = [
        migrations.RunPython(seed, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="dataset",
            name="task",
            field=models.CharField(
                choices=[
                    ("sentiment-classification", "Sentiment classification"),
                    ("linguistic-acceptability", "Linguistic acceptability"),
                    ("named-entity-recognition", "Named-entity recognition"),
                    ("reading-comprehension", "Reading comprehension"),
                    ("knowledge", "Knowledge"),
                    ("common-sense-reasoning", "Common-sense reasoning"),
                    ("summarization", "Summarization"),
                    ("simplification", "Simplification"),
                    ("topic-classification", "Topic classification"),
                    ("instruction-following", "Instruction following"),
                    ("european-values", "European values"),
                ],
                max_length=40,
            ),
        ),
    ]
